#include "mote_conv_offset_pointwise_s8.h"

mote_status mote_conv_offset_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                          mote_scratch scratch) {
  return p->terms ? mote_conv_pointwise_s8(p, input, output, scratch) : MOTE_ERROR;
}

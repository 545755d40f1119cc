#include "mote_depthwise_conv_band_single_s8.h"

mote_status mote_depthwise_conv_band_single_s8(const mote_depthwise_conv_band_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch) {
  (void)scratch;
  mote_depthwise_band_single_s8(p, input, output);
  return MOTE_OK;
}

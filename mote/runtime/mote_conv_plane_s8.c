#include "mote_conv_plane_s8.h"

mote_status mote_conv_plane_s8(const mote_depthwise_conv_plane_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch) {
  if (p->in_ch != 1) return MOTE_ERROR;
  return mote_depthwise_conv_plane_s8(p, input, output, scratch);
}

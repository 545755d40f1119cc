#include "mote_depthwise_band_body.h"

void mote_depthwise_band_single_s8(const mote_depthwise_conv_band_params *p, const int8_t *input, int8_t *output) {
  mote_depthwise_band_body(p, input, output, 1);
}

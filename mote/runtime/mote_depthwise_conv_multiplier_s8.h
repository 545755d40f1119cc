#ifndef MOTE_DEPTHWISE_CONV_MULTIPLIER_S8_H
#define MOTE_DEPTHWISE_CONV_MULTIPLIER_S8_H

#include "mote_depthwise_conv_s8.h"

/* The depthwise convolution for depth multipliers above 1 (mote_depthwise_conv_params): an input pixel
 * feeds depth_multiplier outputs, so it is read and offset once per tap and multiplied into up to eight
 * accumulators held in registers; each tap's weights for those outputs lie side by side. Any filter size,
 * stride, dilation and padding; the taps inside the input are found per pixel, not tested per tap.
 * Bit-exact with TFLite Micro's int8 DepthwiseConvPerChannel. Needs no scratch. */
mote_status mote_depthwise_conv_multiplier_s8(const mote_depthwise_conv_params *p, const int8_t *input,
                                              int8_t *output, mote_scratch scratch);

#endif

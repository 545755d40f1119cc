#ifndef MOTE_CONV_PLANE_S8_H
#define MOTE_CONV_PLANE_S8_H

#include "mote_depthwise_conv_plane_s8.h"

/* A convolution of a one-channel input (groups 1) for scalar cores: the depthwise convolution whose depth
 * multiplier is the output channels, its filter [out_ch][filter_h][filter_w][1] read as the depthwise
 * [1][filter_h][filter_w][out_ch] (mote_depthwise_conv_plane_s8's params, packed so at compile time).
 * Bit-exact with TFLite Micro's int8 ConvPerChannel. Scratch: plane_h * plane_w * plane_group bytes. */
mote_status mote_conv_plane_s8(const mote_depthwise_conv_plane_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch);

#endif

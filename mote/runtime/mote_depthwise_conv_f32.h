#ifndef MOTE_DEPTHWISE_CONV_F32_H
#define MOTE_DEPTHWISE_CONV_F32_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A depthwise 2-D convolution over NHWC float32: output channel oc = ic * depth_multiplier + m reads input
 * channel ic. Each output is clamp(sum + bias[oc], act_min, act_max), the sum taken from 0 over the taps
 * inside the input in TFLite Micro's order (filter row, then column), so the bits agree with its float
 * reference DepthwiseConv. */
typedef struct {
  mote_conv_geometry geometry;  /* out_ch = in_ch * depth_multiplier */
  int32_t depth_multiplier;
  float act_min, act_max;       /* the fused activation's range */
  const float *weights;         /* [filter_h][filter_w][out_ch] */
  const float *bias;            /* [out_ch] (zeros when the model has none) */
} mote_depthwise_conv_f32_params;

/* Eight output channels of a pixel at a time in registers (MOTE_F32_BLOCK), each keeping its order.
 * Needs no scratch; the output must not overlap the input. */
mote_status mote_depthwise_conv_f32(const mote_depthwise_conv_f32_params *p, const float *input, float *output,
                                    mote_scratch scratch);

#endif

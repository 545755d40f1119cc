#ifndef MOTE_DEPTHWISE_CONV_BLOCKED_F32_H
#define MOTE_DEPTHWISE_CONV_BLOCKED_F32_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A float32 depthwise convolution with depth multiplier 1, register-blocked for scalar cores: four output
 * pixels of a row by four channels per inner loop, sixteen accumulators in registers, read in place where
 * the four windows lie inside the input across (one output at a time elsewhere, and for channels past a set
 * of four). Each output sums from 0 over its window's taps inside the input, filter row by filter row, then
 * adds its bias and clamps: TFLite Micro's float DepthwiseConv, bit for bit. */
typedef struct {
  mote_conv_geometry geometry;  /* out_ch = in_ch */
  float act_min, act_max;       /* the fused activation's range */
  const float *weights;         /* [filter_h][filter_w][out_ch] */
  const float *bias;            /* [out_ch] (zeros when the model has none) */
} mote_depthwise_conv_blocked_f32_params;

/* Bit-exact with mote_depthwise_conv_f32 at depth multiplier 1. Needs no scratch. */
mote_status mote_depthwise_conv_blocked_f32(const mote_depthwise_conv_blocked_f32_params *p, const float *input,
                                            float *output, mote_scratch scratch);

#endif

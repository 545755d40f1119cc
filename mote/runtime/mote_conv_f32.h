#ifndef MOTE_CONV_F32_H
#define MOTE_CONV_F32_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A 2-D convolution over NHWC float32, optionally grouped: groups = in_ch / filter_in_ch, output channel
 * oc belongs to group oc / (out_ch / groups) and reads input channels [group * filter_in_ch, +filter_in_ch).
 * Each output is clamp(sum + bias[oc], act_min, act_max), the sum taken from 0 over the taps inside the
 * input in TFLite Micro's order (filter row, filter column, input channel), so the bits agree with its
 * float reference Conv. */
typedef struct {
  mote_conv_geometry geometry;  /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t filter_in_ch;         /* groups = in_ch / filter_in_ch */
  float act_min, act_max;       /* the fused activation's range */
  const float *weights;         /* [filter_h][filter_w][filter_in_ch][out_ch]: the model's OHWI, outputs last */
  const float *bias;            /* [out_ch] (zeros when the model has none) */
} mote_conv_f32_params;

/* Eight output channels of a pixel at a time in registers (MOTE_F32_BLOCK), each keeping its order.
 * Needs no scratch; the output must not overlap the input. */
mote_status mote_conv_f32(const mote_conv_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif

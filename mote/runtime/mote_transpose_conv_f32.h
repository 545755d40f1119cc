#ifndef MOTE_TRANSPOSE_CONV_F32_H
#define MOTE_TRANSPOSE_CONV_F32_H

#include "mote_types.h"

/* A transposed convolution, NHWC: every input pixel scatters onto the output (mote/ops/transpose_conv.py). */
typedef struct {
  int32_t batches, in_h, in_w, in_ch, out_h, out_w, out_ch;
  int32_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
  const float *weights; /* [out_ch][filter_h][filter_w][in_ch] */
  const float *bias;    /* [out_ch] */
  float act_min, act_max;
} mote_transpose_conv_f32_params;

/* Bit-exact with TFLite Micro's float TransposeConv (the same scatter order). Needs no scratch. */
mote_status mote_transpose_conv_f32(const mote_transpose_conv_f32_params *p, const float *input, float *output,
                                    mote_scratch scratch);

#endif

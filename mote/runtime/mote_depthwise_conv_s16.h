#ifndef MOTE_DEPTHWISE_CONV_S16_H
#define MOTE_DEPTHWISE_CONV_S16_H

#include "mote_types.h"

/* A 16x8 NHWC depthwise convolution: output channel o reads input channel o / depth_multiplier; zero
 * points 0, an int64 accumulator. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch, out_h, out_w, depth_multiplier;
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t act_min, act_max;
  int32_t acc64;                /* always 1: TFLite Micro's int16 depthwise reads an int64 bias */
  int32_t narrow;               /* 1: no sum leaves int32: weights [filter_h][filter_w][out_ch], int32 sums */
  const int8_t *weights;        /* narrow: [filter_h][filter_w][out_ch]; else [out_ch][filter_h][filter_w] */
  const int64_t *bias;          /* [out_ch] */
  const int32_t *multiplier;    /* [out_ch], Q31 */
  const int32_t *shift;         /* [out_ch], > 0: left */
} mote_depthwise_conv_s16_params;

/* Bit-exact with TFLite Micro's int16 DepthwiseConvPerChannel. Scratch (narrow): an int32 per output
 * channel. */
mote_status mote_depthwise_conv_s16(const mote_depthwise_conv_s16_params *p, const int16_t *input,
                                    int16_t *output, mote_scratch scratch);

#endif

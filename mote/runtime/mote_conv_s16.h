#ifndef MOTE_CONV_S16_H
#define MOTE_CONV_S16_H

#include "mote_types.h"

/* A 16x8 NHWC convolution, optionally grouped (in_ch / filter_in_ch groups); zero points 0. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch, out_h, out_w, out_ch;
  int32_t filter_h, filter_w, filter_in_ch;
  int32_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t act_min, act_max;
  int32_t acc64;                /* 1: int64 accumulator (int64 bias or none); 0: int32 (int32 bias) */
  int32_t narrow;               /* 1: no sum leaves int32, one group: weights [fh][fw][in][out], int32 sums */
  const int8_t *weights;        /* narrow: [filter_h][filter_w][in_ch][out_ch]; else [out_ch][fh][fw][filter_in_ch] */
  const int64_t *bias;          /* [out_ch] */
  const int32_t *multiplier;    /* [out_ch], Q31 */
  const int32_t *shift;         /* [out_ch], > 0: left */
} mote_conv_s16_params;

/* Bit-exact with TFLite Micro's int16 ConvPerChannel. Scratch (narrow): an int32 per output channel. */
mote_status mote_conv_s16(const mote_conv_s16_params *p, const int16_t *input, int16_t *output,
                          mote_scratch scratch);

#endif

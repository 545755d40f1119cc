#ifndef MOTE_DEPTHWISE_CONV_3X3_S8_H
#define MOTE_DEPTHWISE_CONV_3X3_S8_H

#include "mote_types.h"

/* A 3x3 depthwise convolution with depth multiplier 1 and dilation 1 (any stride and padding).
 * Output pixels (oy, ox) with interior_y0 <= oy < interior_y1 and interior_x0 <= ox < interior_x1
 * have their whole window inside the input (computed at compile time); they take the unrolled path
 * with no bounds checks, from folded_bias, the border pixels the checked one, from bias with the
 * input offset added to each term. Both run along the channels (contiguous in NHWC), sixteen at a
 * time, then one at a time for the last in_ch % 16; with stride_w == 1, interior pixels go in
 * horizontal pairs, whose windows share six taps. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w;                  /* output [batches][out_h][out_w][in_ch] */
  int32_t stride_h, stride_w;            /* >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
  int32_t interior_y0, interior_y1;      /* 0 <= y0 <= y1 <= out_h */
  int32_t interior_x0, interior_x1;      /* 0 <= x0 <= x1 <= out_w */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* zero point 0, packed by blocks of 16 channels: for block b
                                            (channels 16b .. 16b + 15) [9 taps][16] at 144 b; then the
                                            last in_ch % 16 channels as [9 taps][in_ch % 16] */
  const int32_t *bias;                   /* [in_ch], or NULL: used by border pixels */
  const int32_t *folded_bias;            /* [in_ch], never NULL: bias (or 0) + input_offset * the sum of the
                                            9 taps of the channel, used by interior pixels;
                                            |folded_bias| + 9 * 2^14 and |bias| + 9 * 255 * 128
                                            at most INT32_MAX */
  const int32_t *multiplier;             /* [in_ch]: Q31 multiplier */
  const int32_t *left_mul, *right_mul;   /* [in_ch]: TFLite's shift as 2^max(shift, 0) and
                                            2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_depthwise_conv_3x3_params;

/* Bit-exact with mote_depthwise_conv_s8 on the same convolution. Needs no scratch. */
mote_status mote_depthwise_conv_3x3_s8(const mote_depthwise_conv_3x3_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_DEPTHWISE_CONV_3X3_S8_H
#define MOTE_DEPTHWISE_CONV_3X3_S8_H

#include "mote_types.h"

/* A 3x3 depthwise convolution with depth multiplier 1 and dilation 1 (any stride and padding).
 * Output pixels (oy, ox) with interior_y0 <= oy < interior_y1 and interior_x0 <= ox < interior_x1
 * have their whole window inside the input (computed at compile time); they take the unrolled path
 * with no bounds checks, the border pixels the checked one. */
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
  const int8_t *weights;                 /* [3][3][in_ch], zero point 0 */
  const int32_t *bias;                   /* [in_ch], or NULL: used by border pixels */
  const int32_t *folded_bias;            /* [in_ch], never NULL: bias (or 0) + input_offset * the sum of the
                                            9 taps of the channel, used by interior pixels;
                                            |folded_bias| + 9 * 2^14 < 2^31 */
  const int32_t *multiplier, *shift;     /* [in_ch]: Q31 multiplier, shift (> 0: left) */
} mote_depthwise_conv_3x3_params;

/* Bit-exact with mote_depthwise_conv_s8 on the same convolution. Needs no scratch. */
mote_status mote_depthwise_conv_3x3_s8(const mote_depthwise_conv_3x3_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_CONV_ROWS_S8_H
#define MOTE_CONV_ROWS_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution over NHWC int8 that reads the input in place, one filter row at a
 * time: with dilation_w == 1 the filter_w * in_ch input bytes under a filter row are contiguous, as
 * are the matching OHWI weights, so each filter row is one dot product of that length (with
 * dilation_w > 1, one per tap, in_ch long).
 * Output columns interior_x0 <= ox < interior_x1 (computed at compile time) have their windows'
 * columns inside the input: they go four pixels by two output channels at a time (then two pixels
 * by four channels), over the filter rows inside the input, from folded_bias less row_sums of the
 * filter rows outside it (top and bottom padding). The other pixels (border columns, and a last
 * odd interior one) go one by one, four channels at a time, over their in-bounds taps, from bias
 * with the input offset added to each term.
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t interior_x0, interior_x1;      /* 0 <= x0 <= x1 <= out_w */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [out_ch][filter_h][filter_w][in_ch], zero point 0 */
  const int32_t *bias;                   /* [out_ch], never NULL: the model's bias (or 0) */
  const int32_t *folded_bias;            /* [out_ch]: bias + input_offset * sum of the channel's weights */
  const int32_t *row_sums;               /* [filter_h][out_ch]: input_offset * the sum of filter row fy */
  const int32_t *multiplier;             /* [out_ch]: Q31 multiplier */
  const int32_t *left_mul, *right_mul;   /* [out_ch]: TFLite's shift as 2^max(shift, 0) and
                                            2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_conv_rows_params;

/* Bit-exact with mote_conv_s8 on the same convolution when every accumulator bound holds (checked
 * at compile time): |folded_bias| + taps * 2^14, |bias| + taps * 2^15 and |bias| + taps * 255 * 128
 * at most INT32_MAX, taps = filter_h * filter_w * in_ch. Needs no scratch. */
mote_status mote_conv_rows_s8(const mote_conv_rows_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch);

#endif

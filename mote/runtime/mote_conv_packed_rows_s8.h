#ifndef MOTE_CONV_PACKED_ROWS_S8_H
#define MOTE_CONV_PACKED_ROWS_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped CONV_2D (any filter, stride, dilation, padding) with sub-byte weights (int4 or int2 values) kept
 * packed in flash, as a fully connected layer per output pixel: the pixel's window (taps = filter_h * filter_w *
 * in_ch values, [fy][fx][ic], the zero point where it lies outside the input) is gathered into scratch and laid out
 * as input words, then every output channel's filter row is one row of mote_fully_connected_packed_s8's weights
 * (its layout and its two products per multiply, mote_packed_dot_s8.h), four channels at a time. A tap outside
 * the input holds the zero point, so w * (zero point + input_offset) = 0 and the folded bias is that of a whole
 * window. */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h), in_ch = filter's */
  int32_t bits;                          /* 4 or 2 */
  int32_t row_words;                     /* as mote_fully_connected_packed_params' for taps values */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;               /* [out_ch * row_words], mote_fully_connected_packed_s8's layout */
  const int32_t *bias;                   /* [out_ch]: the bias (or 0) plus input_offset * the sum of the filter's
                                            weights; |bias| + taps * 128 * 16 < 2^31 */
  const int32_t *multiplier, *left_mul, *right_mul; /* [out_ch]: Q31 multiplier and shift as powers of two
                                            (mote_output_stage.h) */
} mote_conv_packed_rows_params;

/* Bit-exact with mote_conv_s8 on the unpacked weights. Scratch: taps bytes rounded up to 8, then 4 * row_words *
 * 16 / bits bytes. Returns MOTE_ERROR for a bit width other than 4 or 2, an odd int4 or too small row_words, or too
 * little scratch. */
mote_status mote_conv_packed_rows_s8(const mote_conv_packed_rows_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch);

#endif

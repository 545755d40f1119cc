#ifndef MOTE_CONV_IM2COL_S8_H
#define MOTE_CONV_IM2COL_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* The most taps (padded to a multiple of 16) a window may have: four windows of this many bytes
 * live on the stack during a call. mote.ops.conv2d.IM2COL_MAX_TAPS must match. */
#define MOTE_CONV_IM2COL_MAX_TAPS 256

/* An ungrouped 2-D convolution whose filter rows are too short to vectorize (e.g. 3 input channels):
 * output pixels go four at a time; each one's window (filter_h * filter_w * in_ch taps, HWC order,
 * taps outside the input filled with the input zero point, then zeros up to padded_taps) is copied
 * into a stack buffer, and the four windows are multiplied by the filters two at a time. A padding
 * tap holding the zero point contributes w * (zp + input_offset) = 0, so every window is complete
 * and starts from the folded bias.
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                          /* filter_h * filter_w * in_ch */
  int32_t padded_taps;                   /* taps rounded up to a multiple of 16, <= MOTE_CONV_IM2COL_MAX_TAPS */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [out_ch][padded_taps]: OHWI rows, zero-padded; zero point 0 */
  const int32_t *bias;                   /* [out_ch], never NULL: the model's bias (or 0) plus
                                            input_offset * the sum of the channel's weights;
                                            |bias| + taps * 2^14 <= INT32_MAX */
  const int32_t *multiplier;             /* [out_ch]: Q31 multiplier */
  const int32_t *left_mul, *right_mul;   /* [out_ch]: TFLite's shift as 2^max(shift, 0) and
                                            2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_conv_im2col_params;

/* Bit-exact with mote_conv_s8 on the same convolution. Needs no scratch (4 * MOTE_CONV_IM2COL_MAX_TAPS
 * bytes of stack). Returns MOTE_ERROR if padded_taps is out of range. */
mote_status mote_conv_im2col_s8(const mote_conv_im2col_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif

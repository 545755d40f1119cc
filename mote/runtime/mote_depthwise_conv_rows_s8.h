#ifndef MOTE_DEPTHWISE_CONV_ROWS_S8_H
#define MOTE_DEPTHWISE_CONV_ROWS_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A 3x3 depthwise convolution with depth multiplier 1 and dilation 1 (any stride and padding) for
 * scalar cores, one channel and one row of outputs at a time, read in place: with the nine weights in
 * registers, each window column (three bytes, one per filter row) is loaded once where neighbouring
 * windows share it (strides 1 and 2) and its products are carried to the windows it belongs to; then
 * the row's accumulators, up to MOTE_DEPTHWISE_ROWS_RUN at a time, are requantized with the channel's
 * output stage in registers. A tap outside the input reads as the zero point, which contributes
 * w * (zp + input_offset) = 0, so every window starts from folded_bias: a filter row outside the
 * input gets zero weights and its taps' zp * w in the bias instead, a column outside the input is
 * the zero point itself.
 * Rows and columns are those of a frame: the image's, or its transpose (with the filters transposed)
 * when its columns are longer than its rows, so that the kernel walks the longer axis. The steps
 * say where frame rows and columns lie in the NHWC tensors. A small frame goes through a bordered copy
 * of each channel on the stack instead (mote_depthwise_conv_rows_small.h). */
typedef struct {
  int32_t batches, in_ch;
  int32_t in_h, in_w, out_h, out_w;      /* of the frame */
  int32_t stride_h, stride_w;            /* of the frame, >= 1 */
  int32_t pad_top, pad_left;             /* of the frame, >= 0 */
  int32_t in_row_step, in_col_step;      /* bytes between the input's frame rows, frame columns */
  int32_t out_row_step, out_col_step;    /* the same in the output */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [in_ch][9] in frame order, zero point 0 */
  const int32_t *folded_bias;            /* [in_ch]: bias (or 0) + input_offset * the sum of the channel's
                                            9 taps; |folded_bias| + 9 * 2^14 <= INT32_MAX */
  const int32_t *output_stage;           /* [in_ch][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
} mote_depthwise_conv_rows_params;

/* Outputs per run of a row: their accumulators live on the stack between the two passes. */
#define MOTE_DEPTHWISE_ROWS_RUN 64

/* Bit-exact with mote_depthwise_conv_s8 on the same convolution. Needs no scratch. */
mote_status mote_depthwise_conv_rows_s8(const mote_depthwise_conv_rows_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_DEPTHWISE_CONV_BAND_S8_H
#define MOTE_DEPTHWISE_CONV_BAND_S8_H

#include "mote_output_stage.h"
#include "mote_types.h"

/* A 3x3 depthwise convolution with depth multiplier 1, undilated, one image, stride 1 or 2 across, for
 * scalar cores: channel by channel, its nine weights in registers, one row of outputs at a time read in
 * place, each output requantized as soon as its window is complete (no accumulators in memory).
 * Rows and columns are those of a frame (mote_depthwise_conv_rows_s8.h): the image or its transpose.
 *
 * Across a row, window j covers frame columns s * j - pad_left .. s * j - pad_left + 2 (s the stride
 * across, pad_left 0 or 1). The first `count` windows have every column inside the input but for the
 * first window's first column when pad_left is 1; then, when pad_right is 1, one window whose last
 * column lies just past the input. A column outside the input reads as the zero point: it adds
 * zero_point times the filter column's weights (za for the first column, zc for the last).
 * At stride 1 each column is read once and carried to the three windows it belongs to; at stride 2
 * each window reads two new columns and carries its last to the next window.
 *
 * Down the frame, the rows of outputs come in bands: rows whose three input rows are at the same
 * distances from each other and whose filter rows outside the input (`clip`, bit fy for filter row
 * fy) are the same. A filter row outside the input gets zero weights and its taps' zero point in the
 * bias. The three rows read are a band's top row and the rows d_mid and d_bottom after it; filter row fy
 * meets the row read r = fy - shift (a row read that meets no filter row inside gets zero weights), so a
 * window row cut by the top or bottom of a frame of three rows or more reads three rows inside at the
 * usual distances, shifted down or up by one.
 *
 * The work is mote_depthwise_band_s8's: on rv32 assembly (mote_micro_s8.S, mote/targets/rv32/micro_depthwise.py),
 * its C for other targets. */

#define MOTE_DEPTHWISE_BANDS 4

typedef struct {
  int32_t rows;      /* output rows in the band; 0: the band is unused */
  int32_t in_start;  /* bytes from the channel's first input byte to the band's first top row, frame column 0 */
  int32_t d_mid;     /* bytes from a top row to the row filter row 1 reads */
  int32_t d_bottom;  /* bytes from a top row to the row filter row 2 reads */
  int32_t out_start; /* bytes from the channel's first output byte to the band's first output */
  int32_t clip;      /* bit fy: filter row fy lies outside the input */
  int32_t shift;     /* -1, 0 or 1: the rows read lie that many rows below the window's */
} mote_depthwise_band;

typedef struct {
  int32_t channels;
  int32_t zero_point;                  /* the input's, in [-128, 127] */
  int32_t in_row_step;                 /* bytes between the top rows of successive rows of windows */
  int32_t col_step;                    /* bytes between the input's frame columns */
  int32_t out_row_step, out_col_step;  /* the same in the output */
  int32_t stride;                      /* across: 1 or 2 */
  int32_t pad_left, count, pad_right;  /* as above */
  int32_t output_offset, act_min, act_max;
  const int8_t *weights;               /* [channels][9] in frame order, zero point 0; unused with wide_weights */
  const int32_t *folded_bias;          /* [channels]: bias + input offset times the sum of the nine weights */
  const int32_t *output_stage;         /* [channels][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
  mote_depthwise_band bands[MOTE_DEPTHWISE_BANDS];
  /* NULL, or [channels][9] in frame order in [-255, 255], read instead of `weights`: a legacy uint8 layer's
   * weights minus their zero point (mote.ops.filter_offset), as TensorFlow Lite's uint8 kernel took them; a
   * tap outside the input then contributes (zero_point + input offset) * w = 0, as that kernel skipped it.
   * Needs |folded_bias| + 9 * 128 * 255 <= INT32_MAX. */
  const int16_t *wide_weights;
  int32_t frame_id; /* 0, or a checksum of the frame's shape: a target may have a routine laid out for it
                     * that computes the same (mote.ops.depthwise_band.frame_shape); the C ignores it */
} mote_depthwise_conv_band_params;

/* Bit-exact with mote_depthwise_conv_s8 on the same convolution (with wide_weights: mote_depthwise_conv_offset_s8).
 * Needs no scratch. */
mote_status mote_depthwise_conv_band_s8(const mote_depthwise_conv_band_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch);

/* The kernel's body, every channel of the image. */
void mote_depthwise_band_s8(const mote_depthwise_conv_band_params *p, const int8_t *input, int8_t *output);

#endif

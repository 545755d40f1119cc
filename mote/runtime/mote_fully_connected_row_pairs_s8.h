#ifndef MOTE_FULLY_CONNECTED_ROW_PAIRS_S8_H
#define MOTE_FULLY_CONNECTED_ROW_PAIRS_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED for scalar cores with few output rows (or rows left over from blocks of sixteen): two
 * rows' products per multiply. The weights come packed at compile time as row-pair words
 * W = w[2j][d] + w[2j + 1][d] * 2^16 (an odd last row paired with a row of zeros), in blocks of up to
 * four pairs, [block][accum_depth][pairs of the block], so that one pass over the input feeds eight rows
 * and each input byte loaded feeds a multiply per pair. For two inputs u, v the word sum
 * a = u * W[d] + v * W[d + 1] (modulo 2^32) is S0 + S1 * 2^16, S0 and S1 the two rows' two-term sums; where
 * both lie in [-2^15, 2^15) for every input (checked at compile time, per pair of inputs),
 * (a + 2^15) >> 16 is S1 exactly, and the sum of the words over the row, modulo 2^32, gives the first row's
 * total once the second row's times 2^16 is taken from it. Same arithmetic as mote_fully_connected_blocked_s8:
 * output[b][o] = requantize(bias[o] + filter_offset * sum_d input[b][d] + sum_d w[o][d] * input[b][d]). */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t filter_offset;             /* -filter zero point (per-tensor weights) or 0, in [-127, 128] */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;            /* row-pair words, [block][accum_depth][pairs of the block] */
  const int32_t *bias;               /* as mote_fully_connected_blocked_s8's bias, [out_depth rounded up to even]:
                                        an odd last row's partner 0 */
  const int32_t *output_stage;       /* [out_depth][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
} mote_fully_connected_row_pairs_params;

/* Bit-exact with mote_fully_connected_s8 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_row_pairs_s8(const mote_fully_connected_row_pairs_params *p, const int8_t *input,
                                              int8_t *output, mote_scratch scratch);

#endif

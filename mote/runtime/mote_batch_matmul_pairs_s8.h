#ifndef MOTE_BATCH_MATMUL_PAIRS_S8_H
#define MOTE_BATCH_MATMUL_PAIRS_S8_H

#include "mote_output_stage.h"
#include "mote_types.h"

/* int8 BATCH_MATMUL of two run-time operands through the register-blocked convolutions' inner loop, for rows
 * and columns in whole sets of four (the one-multiply kernel: or fewer than four rows):
 * out[r][c] = requantize(sum_k (A[r][k] - za) * (B[k][c] - zb)), bit-exact with mote_batch_matmul_s8 (TFLite
 * Micro's int32 sum, then its requantization).
 *
 * Per batch, A is packed into the scratch as pair words A[r][2p] * 2^16 + A[r][2p + 1], four rows interleaved
 * ([rows / 4][pairs][4], pairs = 2 * groups, the pairs past the depth zero), with each row's sum; B as pair
 * words B[2p][c] + B[2p + 1][c] * 2^16 ([cols / 4][pairs][4]), with each set of four columns' starts
 * bias_constant - za * colsum and scales -zb. mote_dot_matmul_terms_4x4_s8 (assembly on rv32) then takes each
 * pair product less 128 (mote_matmul_pair_dot: exact for every int8 value), which bias_constant gives back
 * with depth * za * zb (modulo 2^32, as TFLite's sum wraps) and, for mote_batch_matmul_pairs_single_s8, the
 * one-multiply stage's constant: that kernel's outputs go through one-multiply rows
 * (mote_dot_matmul_single_4x4_s8), this one's through a table row per column with its shortcuts: TFLite's
 * requantization, or a RequantShift (mote.ops.matmul_rqs, per tensor or per column). A[r][k] is at
 * a + a_offsets[batch] + r * a_row_step + k * a_depth_step, B[k][c] likewise. */
typedef struct {
  int32_t batches, rows, cols, depth; /* rows and cols multiples of 4 */
  int32_t groups;                     /* (depth + 3) / 4: two pairs of products each */
  const int32_t *a_offsets, *b_offsets; /* [batches] */
  int32_t a_row_step, a_depth_step, b_depth_step, b_col_step;
  int32_t a_zero_point, b_zero_point; /* in [-128, 127] */
  int32_t bias_constant;              /* 128 * pairs + depth * za * zb (+ the stage's constant), modulo 2^32 */
  const int32_t *output_stage;        /* [cols] rows: TFLite's or RequantShift's (mote_output_stage.h), or
                                         one-multiply ones */
  const int32_t *runs;                /* [cols / 4][2]: every group in one run of separate roundings */
  int32_t output_offset, act_min, act_max;
  mote_output_rest_fn rest; /* TFLite's rows: mote_output_rest_s8; RequantShift rows: mote_output_rest_any_s8 */
} mote_batch_matmul_pairs_params;

/* Scratch: 4 * ((rows + cols) * (2 * groups + 1) + 2 * cols) bytes. */
mote_status mote_batch_matmul_pairs_s8(const mote_batch_matmul_pairs_params *p, const int8_t *a, const int8_t *b,
                                       int8_t *output, mote_scratch scratch);

#endif

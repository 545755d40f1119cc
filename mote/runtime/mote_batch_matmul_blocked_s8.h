#ifndef MOTE_BATCH_MATMUL_BLOCKED_S8_H
#define MOTE_BATCH_MATMUL_BLOCKED_S8_H

#include "mote_types.h"

/* int8 BATCH_MATMUL of two run-time operands, register-blocked: out[r][c] = requantize(sum_k (A[r][k] - za) *
 * (B[k][c] - zb)), bit-exact with mote_batch_matmul_s8 (TFLite Micro's int32 sum, which wraps, then its
 * MultiplyByQuantizedMultiplier, offset and clamp).
 *
 * The sum is taken as sum_k A B - zb * rowsum_A[r] - za * colsum_B[c] + depth * za * zb, modulo 2^32: the
 * products of the raw int8 values, two per multiply (mote_pair_dot), the zero points in one term per row
 * and one per column. Per batch, A is packed at run time into the scratch as pair words
 * A[r][2p] * 2^16 + A[r][2p + 1], four rows interleaved ([rows / 4][pairs][4]), with each row's term; then
 * for each set of four columns, B's pair words -B[2p][c] - B[2p + 1][c] * 2^16 ([pairs][4], negated so
 * that each pair of products lies in [-2^15, 2^15) for every int8 value) and the columns' terms. A block of
 * four rows by four columns keeps its sixteen sums in registers: per pair, eight word loads feed sixteen
 * pair products. The rows past the last four each take the four columns by themselves; the columns past
 * the last four are packed as zeros, computed and not stored. A[r][k] is at
 * a + a_offsets[batch] + r * a_row_step + k * a_depth_step, B[k][c] likewise. */
typedef struct {
  int32_t batches, rows, cols, depth;
  int32_t pairs; /* (depth + 1) / 2 */
  const int32_t *a_offsets, *b_offsets; /* [batches] */
  int32_t a_row_step, a_depth_step, b_depth_step, b_col_step;
  int32_t a_zero_point, b_zero_point; /* in [-128, 127] */
  const int32_t *output_stage;        /* one row of mote_output_channel_at (the per-tensor requantization:
                                         TFLite's, or RequantShift's for mote.ops.matmul_rqs) */
  int32_t output_offset, act_min, act_max;
} mote_batch_matmul_blocked_params;

/* Scratch: 4 * (rows4 * pairs + rows4 + 4 * pairs + 4 * rows4) bytes, rows4 = rows rounded up to a multiple of 4. */
mote_status mote_batch_matmul_blocked_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                         const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

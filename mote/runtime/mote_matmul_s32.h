#ifndef MOTE_MATMUL_S32_H
#define MOTE_MATMUL_S32_H

#include "mote_types.h"

typedef struct {
  int32_t batches, m, k, n;           /* out [batches][m][n] int32 */
  int32_t a_bytes, b_bytes;           /* element size of each operand: 1 (int8) or 4 (int32) */
  int32_t a_offset, b_offset;         /* minus each operand's zero point */
  int32_t a_batch_step, b_batch_step; /* elements between batches' matrices (0: one matrix for all) */
  int32_t alpha;
  const int32_t *bias;                /* [m][n], added after alpha, or NULL */
} mote_matmul_s32_params;

/* Exact integer (batched) matrix product to int32 accumulators, no requantization (integer-dialect MatMul / Gemm):
 * out = alpha * sum_t (a[i][t] + a_offset) * (b[t][j] + b_offset) + bias[i][j], wrapped like int32 arithmetic.
 * a [m][k], b [k][n] per batch, either an activation or a constant. */
mote_status mote_matmul_s32(const mote_matmul_s32_params *p, const void *a, const void *b, int32_t *output,
                            mote_scratch scratch);

#endif

/* The BATCH_MATMUL kernels (mote_batch_matmul_f32, _s8, _s16): for each batch, out[r][c] = sum_k A[r][k] * B[k][c]
 * with A[r][k] at a + a_offsets[batch] + r * a_row_step + k * a_depth_step (B likewise), so a transposed
 * operand or a broadcast batch costs nothing (mote/ops/batch_matmul.py plans the offsets). */
#ifndef MOTE_BATCH_MATMUL_H
#define MOTE_BATCH_MATMUL_H

#include "mote_types.h"

typedef struct {
  int32_t batches, rows, cols, depth;
  const int32_t *a_offsets, *b_offsets; /* [batches] */
  int32_t a_row_step, a_depth_step, b_depth_step, b_col_step;
  /* the integer kernels: zero points, requantization, the output type's range */
  int32_t a_offset, b_offset, output_offset;
  int32_t multiplier, shift;
  int32_t act_min, act_max;
} mote_batch_matmul_params;

/* Walks every output element in order: `row`, `col` and the batch's operands `pa`, `pb` are set for BODY. */
#define MOTE_BATCH_MATMUL_WALK(p, a, b, BODY)                                          \
  for (int32_t batch = 0; batch < (p)->batches; ++batch) {                             \
    for (int32_t row = 0; row < (p)->rows; ++row) {                                    \
      for (int32_t col = 0; col < (p)->cols; ++col) {                                  \
        const int32_t pa = (p)->a_offsets[batch] + row * (p)->a_row_step;              \
        const int32_t pb = (p)->b_offsets[batch] + col * (p)->b_col_step;              \
        BODY                                                                           \
      }                                                                                \
    }                                                                                  \
  }

#endif

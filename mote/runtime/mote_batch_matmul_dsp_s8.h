#ifndef MOTE_BATCH_MATMUL_DSP_S8_H
#define MOTE_BATCH_MATMUL_DSP_S8_H

#include "mote_batch_matmul_blocked_s8.h"

/* int8 BATCH_MATMUL of two run-time operands on a core with the DSP extension (Cortex-M4, M7, M33), the
 * parameters of mote_batch_matmul_blocked_s8 (pairs unused), bit-exact with mote_batch_matmul_s8: out[r][c] =
 * requantize(sum_k (A[r][k] - za) * (B[k][c] - zb)), the int32 sum wrapping as TFLite's does (SMLAD's does).
 *
 * Per batch, A's rows less za are widened once into the scratch as int16 pair words (mote_dsp.h's layout,
 * two rows interleaved, the depth zero-padded to groups of four); then for each pair of columns, B's two
 * columns less zb likewise (B transposed on the way), and every pair of rows meets them in
 * mote_dsp_dot_2x2: four sums in registers, 16 MACs per 12 instructions in its loop. An odd row or column
 * is computed as zeros and not stored. */
#define MOTE_BATCH_MATMUL_DSP_SCRATCH(rows, depth) (8 * (((rows) + 1) / 2 * 2 + 2) * (((depth) + 3) / 4) + 8)

mote_status mote_batch_matmul_dsp_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a, const int8_t *b,
                                     int8_t *output, mote_scratch scratch);

#endif

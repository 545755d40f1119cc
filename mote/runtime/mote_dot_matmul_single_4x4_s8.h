#ifndef MOTE_DOT_MATMUL_SINGLE_4X4_S8_H
#define MOTE_DOT_MATMUL_SINGLE_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* The activation x activation GEMM's inner loop with one-multiply outputs (mote_batch_matmul_pairs_single_s8):
 * for `blocks` blocks of four rows (block b's words at x + 16 * pairs * b, x[4k + i] row i's pair k;
 * its terms at terms + 4 * b; its outputs 4 * how->m bytes on) by `quads` sets of four columns (set q's words
 * at w + 16 * pairs * q, w[4k + j] column j's pair k; its starts at starts + 4 * q), the sums
 * a[i][j] = starts[j] + terms[i] + sum_k mote_matmul_pair_dot(x[4k + i], w[4k + j]), `pairs` even, each
 * stored to how->out + i * how->m + j through the one row at how->stage (low, high, multiplier:
 * mote_output_single.h; how->lo and how->hi its clamps). On rv32 it is assembly (mote_micro_s8.S,
 * mote/targets/rv32/micro_matmul.py); this C is its twin for other targets. */
void mote_dot_matmul_single_4x4_s8(const int32_t *x, const int32_t *w, int32_t pairs, const int32_t *starts,
                                   const int32_t *terms, int32_t quads, const mote_block_out *how, int32_t blocks);

#endif

#ifndef MOTE_DOT_MATMUL_TERMS_4X4_S8_H
#define MOTE_DOT_MATMUL_TERMS_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* mote_dot_pairs_terms_4x4_s8 (its arguments, accumulators and outputs through TFLite's rows) for two
 * activations: x and w any int8 pair words, every pair product taken by mote_matmul_pair_dot (the pair's sum
 * less 128, exact for every int8 value); the runs list no groups sharing a rounding. On rv32 it is assembly
 * (mote_micro_s8.S, mote/targets/rv32/micro.py); this C is its twin for other targets. */
void mote_dot_matmul_terms_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                  const int32_t *bias, int32_t quads, const mote_block_out *how,
                                  const int32_t sums[4]);

#endif

#ifndef MOTE_DOT_MATMUL_TERMS_SINGLE_4X4_S8_H
#define MOTE_DOT_MATMUL_TERMS_SINGLE_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* mote_dot_matmul_terms_4x4_s8 (its pair products) with the outputs through one-multiply rows for `blocks`
 * blocks, as mote_dot_pairs_terms_single_4x4_s8. On rv32 it is assembly (mote_micro_s8.S,
 * mote/targets/rv32/micro.py); this C is its twin for other targets. */
void mote_dot_matmul_terms_single_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                         const int32_t *bias, int32_t quads, const mote_block_out *how,
                                         const int32_t *sums, int32_t blocks);

#endif

#ifndef MOTE_DOT_PAIRS_TERMS_4X4_S8_H
#define MOTE_DOT_PAIRS_TERMS_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* mote_dot_pairs_4x4_s8 (mote_dot_pairs_4x4_s8.h) whose accumulators start from
 * bias[q] + bias[4 + q] * sums[i]: filter q's bias and scale, window i's sum (a legacy uint8 layer's
 * weights-offset term, mote_conv_offset_blocked_s8), bias then eight words on for each next four filters.
 * The weights may reach 128 (w in [-127, 128]): with int8 inputs a pair's products still lie in
 * [-2^15, 2^15), and the groups sharing roundings are checked on the weights as they are
 * (mote.ops.pair_groups). On rv32 it is assembly (mote_micro_s8.S, mote/targets/rv32/micro.py); this C is
 * its twin for other targets. */
void mote_dot_pairs_terms_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                 const int32_t *bias, int32_t quads, const mote_block_out *how,
                                 const int32_t sums[4]);

#endif

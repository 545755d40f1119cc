#ifndef MOTE_DOT_PAIRS_SINGLE_4X4_S8_H
#define MOTE_DOT_PAIRS_SINGLE_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* mote_dot_pairs_4x4_s8 (its arguments and accumulators) with the outputs through one-multiply rows:
 * how->stage is a table of MOTE_OUTPUT_SINGLE_WORDS words per channel (mote_output_single.h), how->offset
 * unused (each row holds it); for `blocks` blocks of pixels, each block's windows (8 * groups words)
 * after the last's and its outputs four pixels (4 * how->m bytes) on, every block from the first filters.
 * On rv32 it is assembly (mote_micro_s8.S, mote/targets/rv32/micro.py); this C is its twin for other
 * targets. */
void mote_dot_pairs_single_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                  const int32_t *bias, int32_t quads, const mote_block_out *how,
                                  int32_t blocks);

#endif

#ifndef MOTE_DOT_PAIRS_4X4_S8_H
#define MOTE_DOT_PAIRS_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* The register-blocked convolutions' inner loop: four windows by four filters over tap pairs, for
 * `quads` sets of four filters one after the other (the window read again for each), each set's
 * sixteen outputs written through `how` (mote_conv_common.h; how->out and how->stage for the first
 * set, each next set four channels on).
 * A set's accumulators are acc[4i + q] = bias[q] + sum over pairs k of x0 * w0 + x1 * w1, where
 * x[4k + i] = x0 * 2^16 + x1 holds window i's taps 2k and 2k + 1 and w[4k + q] = w0 + w1 * 2^16
 * filter q's (|x| <= 128, |w| <= 127); then bias and w move on by 4 and the set's words. The pairs go
 * in groups of two (8 words of x, 8 of w); `runs` lists, until a set's groups run out, the bytes of x
 * (32 a group) of a run of groups whose four products per window and filter fit 16 bits for every
 * input and so share one rounding (mote_pair_dot2), then those of a run of groups that do not
 * (mote_pair_dot each): runs[0], runs[1], runs[2], ..., the next set's runs after. On rv32 it is
 * assembly (mote_micro_s8.S, mote/targets/rv32/micro.py); this C is its twin for other targets. */
void mote_dot_pairs_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                           const int32_t *bias, int32_t quads, const mote_block_out *how);

#endif

#ifndef MOTE_FULLY_CONNECTED_PAIRS_S8_H
#define MOTE_FULLY_CONNECTED_PAIRS_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED for scalar cores, two int8 products per multiply (mote_pair_dot): sixteen output rows at
 * a time, their sums in registers. Per batch, the input is packed at run time on the stack as pair words
 * x[2k] * 2^16 + x[2k + 1]; the weights were packed at compile time as pair words w[o][2k] +
 * w[o][2k + 1] * 2^16 and, per block of sixteen rows, their words matched in groups of two (any two, chosen
 * at compile time so that as many groups as possible have their four products fit 16 bits for every
 * input in all sixteen rows, mote.ops.pair_groups, and take one rounding for both words, mote_pair_dot2):
 * per group, the sixteen rows' first words, then their second ([blocks][groups][2][16]); `offsets` gives
 * each group's two input words (byte offsets into the packed input) and `runs`, per block, how many of its
 * groups share their roundings (they come first) and how many do not. Where matching gains too little
 * (offsets NULL), the groups are the consecutive words in order, and `runs` gives them per block as runs,
 * (groups sharing, groups not) count pairs, until the block's groups are all counted. Same arithmetic as
 * mote_fully_connected_blocked_s8. */
/* The deepest layer it takes: its packed input, 2 * accum_depth bytes, is on the stack. */
#define MOTE_FULLY_CONNECTED_PAIRS_MAX_DEPTH 1024

typedef struct {
  int32_t batches, accum_depth, out_depth; /* accum_depth % 4 == 0 and <= the maximum, out_depth % 16 == 0 */
  int32_t filter_offset;                   /* -filter zero point (per-tensor weights) or 0 */
  int32_t output_offset;                   /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;                /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                  /* pair words, every weight in [-127, 127] */
  const uint16_t *runs;                    /* [blocks][2] (matched) or runs per block (in order) */
  const uint16_t *offsets;                 /* [blocks][groups][2]: byte offsets of each group's input words,
                                              or NULL: consecutive words in order */
  const int32_t *bias;                     /* [out_depth], as mote_fully_connected_blocked_s8's bias */
  const int32_t *multiplier;               /* [out_depth]: Q31 multiplier */
  const int32_t *left_mul, *right_mul;     /* [out_depth]: as mote_fully_connected_blocked_s8's */
} mote_fully_connected_pairs_params;

/* Bit-exact with mote_fully_connected_s8 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_pairs_s8(const mote_fully_connected_pairs_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch);

#endif

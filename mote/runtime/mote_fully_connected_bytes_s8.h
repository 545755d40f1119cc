#ifndef MOTE_FULLY_CONNECTED_BYTES_S8_H
#define MOTE_FULLY_CONNECTED_BYTES_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED for scalar cores, two int8 products per multiply from weights stored one byte each:
 * sixteen output rows at a time, their sums in registers. Per block of sixteen rows and per group of two
 * input words a and b (word k: inputs 2k and 2k + 1), each row's four weights are one word of the biased
 * bytes u = w + 128: [u(2a), u(2b), u(2a + 1), u(2b + 1)] ([blocks][groups][16]); `offsets` gives each
 * group's input words as byte offsets into the input table the kernel packs on the stack (8 bytes a word),
 * `runs`, per block, how many of its groups share one rounding (they come first: their four products fit
 * 16 bits for every input, checked at compile time) and how many do not. Same sums as
 * mote_fully_connected_pairs_s8 (mote.ops.fully_connected_bytes explains the unpacking), same arithmetic as
 * mote_fully_connected_blocked_s8. */
/* The deepest layer it takes: its input table, 4 * accum_depth bytes, is on the stack. */
#define MOTE_FULLY_CONNECTED_BYTES_MAX_DEPTH 512

typedef struct {
  int32_t batches, accum_depth, out_depth; /* accum_depth % 4 == 0 and <= the maximum, out_depth % 16 == 0 */
  int32_t filter_offset;                   /* -filter zero point (per-tensor weights) or 0 */
  int32_t output_offset;                   /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;                /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;                 /* biased bytes, every weight in [-127, 127] */
  const uint16_t *runs;                    /* [blocks][2] */
  const uint16_t *offsets;                 /* [blocks][groups][2] */
  const int32_t *bias;                     /* [out_depth], as mote_fully_connected_blocked_s8's bias */
  const int32_t *multiplier;               /* [out_depth]: Q31 multiplier */
  const int32_t *left_mul, *right_mul;     /* [out_depth]: as mote_fully_connected_blocked_s8's */
} mote_fully_connected_bytes_params;

/* Bit-exact with mote_fully_connected_s8 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_bytes_s8(const mote_fully_connected_bytes_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch);

#endif

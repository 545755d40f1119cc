#ifndef MOTE_FULLY_CONNECTED_PACKED_S8_H
#define MOTE_FULLY_CONNECTED_PACKED_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED with sub-byte weights (int4 or int2 values) kept packed in flash: what
 * mote_fully_connected_s8 computes, from weights of `bits` bits, 32 / bits to a word.
 *
 * Each weight row is row_words words, row_words = 2 * ceil(accum_depth / 16) (int4: even) or
 * ceil(accum_depth / 16) (int2), its values in order, the first in a word's lowest bits, each field the biased
 * value u = w + half (half = 2^(bits - 1), so u in [0, 2 * half - 1]: the two's complement field with its top bit
 * flipped); the fields past accum_depth are zero. The rows of whole blocks of four go with their words
 * interleaved: word k of row 4i + r is weights[(i * row_words + k) * 4 + r]; the last out_depth % 4 rows follow,
 * each row's words in order. The kernel subtracts half * sum_d input[b][d] once per input row:
 * output[b][o] = requantize(bias[o] + (filter_offset - half) * sum_d input[b][d] + sum_d u[o][d] * input[b][d]).
 *
 * Two products per multiply: the input row is first laid out in scratch as words X = x[a] * 2^16 + x[a + V / 2]
 * (V = 32 / bits values a weight word, a = V * g + j, j < V / 2, zeros past accum_depth); field j and field
 * j + V / 2 of a weight word, masked into the two halves of a word E, give X * E = (x[a] * u_j + x[a + V / 2] *
 * u_{j + V / 2}) * 2^16 + x[a + V / 2] * u_j modulo 2^32. Two int4 weight words' products, or one int2 word's,
 * are summed and their high half taken once, rounding away the low terms: |low sum| <= 8 * 128 * 15 < 2^15 and
 * |high sum| <= 16 * 128 * 15 < 2^15 (int4; int2's are smaller). Four rows at a time, each input word loaded
 * once for them, then the last rows one by one (mote_packed_dot_s8.h). */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t bits;                      /* 4 or 2 */
  int32_t row_words;                 /* int4 2 * ceil(accum_depth / 16), int2 ceil(accum_depth / 16) */
  int32_t filter_offset;             /* -filter zero point (per-tensor weights) or 0, in [-127, 128] */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;           /* [out_depth * row_words], packed as above */
  const int32_t *bias;               /* [out_depth], never NULL: as mote_fully_connected_params' bias
                                        (input offset folded in); |bias| + accum_depth * 128 * (128 + |filter_offset|)
                                        < 2^31 bounds every partial sum */
  const int32_t *multiplier;         /* [out_depth]: Q31 multiplier (a per-tensor one repeated) */
  const int32_t *left_mul, *right_mul; /* [out_depth]: see mote_output_stage.h */
} mote_fully_connected_packed_params;

/* Bit-exact with mote_fully_connected_s8 on the unpacked weights (TFLite Micro's FullyConnected with int4
 * filters). Scratch: 4 * row_words * 16 / bits bytes (the input words). Returns MOTE_ERROR for a bit width other
 * than 4 or 2, an odd int4 or too small row_words, or too little scratch. */
mote_status mote_fully_connected_packed_s8(const mote_fully_connected_packed_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch);

#endif

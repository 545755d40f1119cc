#ifndef MOTE_CACHED_ATTENTION_S8_H
#define MOTE_CACHED_ATTENTION_S8_H

#include "mote_types.h"

/* One decoding step of int8 multi-head attention over a KV cache kept as state (mote/ops/cached_attention.py).
 * q, k, v, output: [heads][head_dim]; k_cache, v_cache: [heads][max_context][head_dim], quantized as k and v;
 * position: how many tokens the caches hold. Writes k and v at row `position`, then per head: the int8 scores
 * of q against the position + 1 live keys, TFLite Micro's int8 softmax over them (probabilities at scale 1/256,
 * zero point -128; requantized when requantize_probs) and the requantized sum of the probabilities times the live values. The work grows with
 * the live context, never with max_context. Returns MOTE_ERROR, changing nothing, once the caches are full.
 * Scratch: 2 * head_dim + 4 * max_context bytes. */
typedef struct {
  int32_t heads, head_dim, max_context;
  int32_t q_offset, k_offset, v_offset;          /* minus the zero points */
  int32_t scores_offset, scores_multiplier, scores_shift;
  int32_t output_offset, output_multiplier, output_shift;
  int32_t requantize_probs;                      /* 1: probabilities from 1/256, -128 to probs_* */
  int32_t probs_offset, probs_multiplier, probs_shift;
  int32_t softmax_diff_min;       /* scores further below their row's maximum get probability 0 (-128) */
  const int32_t *exp_table;       /* [256]: the softmax's exp (Q0) of the difference -i from the maximum */
} mote_cached_attention_params;

mote_status mote_cached_attention_s8(const mote_cached_attention_params *p, const int8_t *q, const int8_t *k,
                                     const int8_t *v, int8_t *k_cache, int8_t *v_cache, int32_t *position,
                                     int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_CACHED_ATTENTION_S8_H
#define MOTE_CACHED_ATTENTION_S8_H

#include "mote_types.h"

/* One decoding step of int8 multi-head attention over a KV cache kept as state (mote/ops/cached_attention.py).
 * q, k, v, output: [heads][head_dim]; k_cache, v_cache: [heads][max_context][head_dim], quantized as k and v;
 * position: how many tokens the caches hold. Writes k and v at row `position`, then per head: the int8 scores
 * of q against the position + 1 live keys, TFLite Micro's int8 softmax over them (probabilities at scale 1/256,
 * zero point -128; requantized by probs_table) and the requantized sum of the probabilities times the live values. The work grows with
 * the live context, never with max_context. Returns MOTE_ERROR, changing nothing, once the caches are full.
 * Scratch: 2 * head_dim + 4 * max_context bytes. */
typedef struct {
  int32_t heads, head_dim, max_context;
  int32_t q_offset, k_offset, v_offset;          /* minus the zero points */
  int32_t scores_offset, output_offset;         /* the zero points of the scores and of the output */
  const int32_t *scores_stage, *output_stage;    /* their requantizations: one-channel output-stage tables
                                                    (mote_output_stage.h) */
  int32_t probs_offset;                          /* the probabilities' zero point */
  const int8_t *probs_table;                     /* [256], by the softmax's byte: the probability requantized
                                                    from 1/256, -128 to the probabilities' scale; NULL: kept */
  int32_t softmax_diff_min;       /* scores further below their row's maximum get probability 0 (-128) */
  const int32_t *exp_table;       /* [256]: the softmax's exp (Q0) of the difference -i from the maximum */
} mote_cached_attention_params;

mote_status mote_cached_attention_s8(const mote_cached_attention_params *p, const int8_t *q, const int8_t *k,
                                     const int8_t *v, int8_t *k_cache, int8_t *v_cache, int32_t *position,
                                     int8_t *output, mote_scratch scratch);

#endif

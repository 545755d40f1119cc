#include "mote_cached_attention_s8.h"

#include "mote_fixedpoint.h"
#include "mote_softmax_s8_rows.h"

mote_status mote_cached_attention_s8(const mote_cached_attention_params *p, const int8_t *q, const int8_t *k,
                                     const int8_t *v, int8_t *k_cache, int8_t *v_cache, int32_t *position,
                                     int8_t *output, mote_scratch scratch) {
  const int32_t pos = *position, hd = p->head_dim;
  if (pos < 0 || pos >= p->max_context || scratch.size < 2 * (size_t)p->max_context) return MOTE_ERROR;
  const int32_t live = pos + 1, head_step = p->max_context * hd;
  int8_t *scores = scratch.buf, *probs = scratch.buf + p->max_context;
  const mote_softmax_params row = {1, live, p->softmax_multiplier, p->softmax_left_shift, p->softmax_diff_min};
  for (int32_t h = 0; h < p->heads; ++h) {
    int8_t *keys = k_cache + h * head_step, *values = v_cache + h * head_step;
    for (int32_t d = 0; d < hd; ++d) {
      keys[pos * hd + d] = k[h * hd + d];
      values[pos * hd + d] = v[h * hd + d];
    }
    const int8_t *qh = q + h * hd;
    for (int32_t j = 0; j < live; ++j) {
      /* |sum| <= head_dim * 255 * 255: fits int32 for any head_dim below 33,000. */
      int32_t acc = 0;
      const int8_t *key = keys + j * hd;
      for (int32_t d = 0; d < hd; ++d) acc += (qh[d] + p->q_offset) * (key[d] + p->k_offset);
      const int32_t s = mote_add_wrap(mote_requantize(acc, p->scores_multiplier, p->scores_shift), p->scores_offset);
      scores[j] = (int8_t)mote_clamp(s, -128, 127);
    }
    mote_softmax_s8_rows(&row, scores, probs, 0);
    if (p->requantize_probs) {
      for (int32_t j = 0; j < live; ++j) {
        const int32_t r = mote_add_wrap(mote_requantize(probs[j] + 128, p->probs_multiplier, p->probs_shift),
                                        p->probs_offset);
        probs[j] = (int8_t)mote_clamp(r, -128, 127);
      }
    }
    for (int32_t d = 0; d < hd; ++d) {
      int32_t acc = 0;
      for (int32_t j = 0; j < live; ++j) acc += (probs[j] - p->probs_offset) * (values[j * hd + d] + p->v_offset);
      const int32_t o = mote_add_wrap(mote_requantize(acc, p->output_multiplier, p->output_shift), p->output_offset);
      output[h * hd + d] = (int8_t)mote_clamp(o, -128, 127);
    }
  }
  *position = live;
  return MOTE_OK;
}

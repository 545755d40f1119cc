#include "mote_cached_attention_s8.h"

#include "mote_fixedpoint.h"
#include "mote_gemmlowp.h"

/* TFLite Micro's int8 softmax of one row (mote_softmax_s8_rows), its exponentials from the table. */
static void mote_cached_attention_softmax(const mote_cached_attention_params *p, const int8_t *x, int8_t *out,
                                          int32_t n) {
  int32_t max = -128, sum = 0;
  for (int32_t j = 0; j < n; ++j) {
    if (x[j] > max) max = x[j];
  }
  for (int32_t j = 0; j < n; ++j) {
    const int32_t d = x[j] - max;
    if (d >= p->softmax_diff_min) sum = mote_fp_add(sum, mote_rdbypot(p->exp_table[-d], 12)); /* Q12.19 */
  }
  const int32_t headroom_plus_one = mote_fp_clz((uint32_t)sum);
  const int32_t inverse = mote_fp_one_over_one_plus_x(
      (int32_t)(((uint32_t)sum << headroom_plus_one) - ((uint32_t)1 << 31)));
  const int32_t exponent = 12 - headroom_plus_one + 31 - 8;
  for (int32_t j = 0; j < n; ++j) {
    const int32_t d = x[j] - max;
    int32_t prob = -128;
    if (d >= p->softmax_diff_min) {
      const int32_t scaled = exponent > 31 ? 0 : mote_rdbypot(mote_srdhm(inverse, p->exp_table[-d]), exponent);
      prob = mote_clamp(scaled - 128, -128, 127);
    }
    out[j] = (int8_t)prob;
  }
}

/* The zero points are folded out of the inner loops: sum (q + oq)(k + ok) = sum q' k + ok sum q' with
 * q' = q + oq kept as int16 in scratch, and sum p'(v + ov) = sum p' v + ov sum p' with p' = p - zp; the
 * sums are exact in int32, so the result is the reference's. Scratch: q' [head_dim], p' [max_context]
 * (int16), then the scores and probabilities [max_context] (int8). */
mote_status mote_cached_attention_s8(const mote_cached_attention_params *p, const int8_t *q, const int8_t *k,
                                     const int8_t *v, int8_t *k_cache, int8_t *v_cache, int32_t *position,
                                     int8_t *output, mote_scratch scratch) {
  const int32_t pos = *position, hd = p->head_dim, t = p->max_context;
  if (pos < 0 || pos >= t || scratch.size < (size_t)(2 * hd + 4 * t)) return MOTE_ERROR;
  const int32_t live = pos + 1, head_step = t * hd;
  int16_t *qz = (int16_t *)(void *)scratch.buf, *pz = qz + hd;
  int8_t *scores = (int8_t *)(pz + t), *probs = scores + t;
  for (int32_t h = 0; h < p->heads; ++h) {
    int8_t *keys = k_cache + h * head_step, *values = v_cache + h * head_step;
    int32_t q_sum = 0;
    for (int32_t d = 0; d < hd; ++d) {
      keys[pos * hd + d] = k[h * hd + d];
      values[pos * hd + d] = v[h * hd + d];
      qz[d] = (int16_t)(q[h * hd + d] + p->q_offset);
      q_sum += qz[d];
    }
    const int32_t key_term = q_sum * p->k_offset;
    for (int32_t j = 0; j < live; ++j) {
      /* |sum| <= head_dim * 255 * 255: fits int32 for any head_dim below 33,000. */
      int32_t acc = key_term;
      const int8_t *key = keys + j * hd;
      for (int32_t d = 0; d < hd; ++d) acc += qz[d] * key[d];
      const int32_t s = mote_add_wrap(mote_requantize(acc, p->scores_multiplier, p->scores_shift), p->scores_offset);
      scores[j] = (int8_t)mote_clamp(s, -128, 127);
    }
    mote_cached_attention_softmax(p, scores, probs, live);
    int32_t p_sum = 0;
    for (int32_t j = 0; j < live; ++j) {
      int32_t prob = probs[j];
      if (p->requantize_probs) {
        prob = mote_clamp(mote_add_wrap(mote_requantize(prob + 128, p->probs_multiplier, p->probs_shift),
                                        p->probs_offset), -128, 127);
      }
      pz[j] = (int16_t)(prob - p->probs_offset);
      p_sum += pz[j];
    }
    const int32_t value_term = p_sum * p->v_offset;
    for (int32_t d = 0; d < hd; ++d) {
      int32_t acc = value_term;
      const int8_t *column = values + d;
      for (int32_t j = 0; j < live; ++j) acc += pz[j] * column[j * hd];
      const int32_t o = mote_add_wrap(mote_requantize(acc, p->output_multiplier, p->output_shift), p->output_offset);
      output[h * hd + d] = (int8_t)mote_clamp(o, -128, 127);
    }
  }
  *position = live;
  return MOTE_OK;
}

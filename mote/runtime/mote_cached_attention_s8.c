#include "mote_cached_attention_s8.h"

#include "mote_fixedpoint.h"
#include "mote_gemmlowp.h"
#include "mote_output_stage.h"

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

/* acc[i] = base + sum_d qz[d] * keys[i * hd + d] for four consecutive keys, hd % 4 == 0: each q' loaded once
 * for the four, the keys read at fixed offsets from their rows. */
static void key_scores4(const int16_t *qz, const int8_t *keys, int32_t hd, int32_t base, int32_t *acc) {
  const int8_t *k0 = keys, *k1 = keys + hd, *k2 = keys + 2 * hd, *k3 = keys + 3 * hd;
  int32_t a0 = base, a1 = base, a2 = base, a3 = base;
  for (const int16_t *end = qz + hd; qz != end; qz += 4, k0 += 4, k1 += 4, k2 += 4, k3 += 4) {
    for (int32_t d = 0; d < 4; ++d) {
      const int32_t q = qz[d];
      a0 += q * k0[d], a1 += q * k1[d], a2 += q * k2[d], a3 += q * k3[d];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* acc[c] = base + sum_i pz[i] * values[i * hd + c] for eight columns c < 8: the sums in registers, each p'
 * loaded once for the eight, the values read at fixed offsets from their row. */
static void value_columns8(const int16_t *pz, const int8_t *values, int32_t hd, int32_t live, int32_t base,
                           int32_t *acc) {
  int32_t a0 = base, a1 = base, a2 = base, a3 = base, a4 = base, a5 = base, a6 = base, a7 = base;
  for (const int16_t *end = pz + live; pz != end; ++pz, values += hd) {
    const int32_t w = *pz;
    a0 += w * values[0], a1 += w * values[1], a2 += w * values[2], a3 += w * values[3];
    a4 += w * values[4], a5 += w * values[5], a6 += w * values[6], a7 += w * values[7];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
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
  const mote_output_channel score_stage = mote_output_channel_at(p->scores_stage, 0, p->scores_offset, -128, 127);
  const mote_output_channel output_stage = mote_output_channel_at(p->output_stage, 0, p->output_offset, -128, 127);
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
    /* |sum| <= head_dim * 255 * 255: fits int32 for any head_dim below 33,000. */
    for (int32_t j = 0; j < live;) {
      int32_t acc[4];
      const int32_t n = hd % 4 == 0 && j + 4 <= live ? 4 : 1;
      if (n == 4) {
        key_scores4(qz, keys + j * hd, hd, key_term, acc);
      } else {
        acc[0] = key_term;
        const int8_t *key = keys + j * hd;
        for (int32_t d = 0; d < hd; ++d) acc[0] += qz[d] * key[d];
      }
      for (int32_t i = 0; i < n; ++i, ++j) {
        scores[j] = mote_output_of(acc[i], &score_stage);
      }
    }
    mote_cached_attention_softmax(p, scores, probs, live);
    int32_t p_sum = 0;
    for (int32_t j = 0; j < live; ++j) {
      const int32_t prob = p->probs_table != NULL ? p->probs_table[(uint8_t)probs[j]] : probs[j];
      pz[j] = (int16_t)(prob - p->probs_offset);
      p_sum += pz[j];
    }
    const int32_t value_term = p_sum * p->v_offset;
    for (int32_t d = 0; d < hd;) {
      int32_t acc[8];
      const int32_t n = hd % 8 == 0 ? 8 : 1;
      if (n == 8) {
        value_columns8(pz, values + d, hd, live, value_term, acc);
      } else {
        acc[0] = value_term;
        const int8_t *column = values + d;
        for (int32_t i = 0; i < live; ++i) acc[0] += pz[i] * column[i * hd];
      }
      for (int32_t i = 0; i < n; ++i, ++d) {
        output[h * hd + d] = mote_output_of(acc[i], &output_stage);
      }
    }
  }
  *position = live;
  return MOTE_OK;
}

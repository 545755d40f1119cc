#include "mote_conv_offset_blocked_s8.h"

#include "mote_conv_common.h"

/* A window's taps appended span by span as pairs x0 * 2^16 + x1, pair k at words[4k] (one pixel of a
 * block of four), with the sum of the taps: a span of odd length leaves its last tap pending, the
 * first of the next pair. */
typedef struct {
  int32_t *words;
  int32_t sum, first, pending;
} pair_packer;

/* n taps from src. */
static inline void put_taps(pair_packer *s, const int8_t *src, int32_t n) {
  int32_t *w = s->words, sum = s->sum;
  if (n > 0 && s->pending) {
    const int32_t x = *src++;
    *w = s->first * 65536 + x, w += 4, sum += x;
    --n, s->pending = 0;
  }
  for (; n >= 2; n -= 2, src += 2, w += 4) {
    const int32_t x0 = src[0], x1 = src[1];
    *w = x0 * 65536 + x1, sum += x0 + x1;
  }
  if (n == 1) s->first = *src, sum += *src, s->pending = 1;
  s->words = w, s->sum = sum;
}

/* n taps of value v. */
static inline void put_copies(pair_packer *s, int32_t v, int32_t n) {
  int32_t *w = s->words;
  s->sum += v * n;
  if (n > 0 && s->pending) *w = s->first * 65536 + v, w += 4, --n, s->pending = 0;
  for (; n >= 2; n -= 2, w += 4) *w = v * 65536 + v;
  if (n == 1) s->first = v, s->pending = 1;
  s->words = w;
}

/* Output pixel `pixel`'s window (HWC tap order, taps outside the input holding the zero point) packed
 * in pairs into words[4k], zero taps after it up to 2 * pairs; returns the sum of its taps. */
static int32_t gather(const mote_conv_offset_blocked_params *p, const int8_t *input, int32_t pixel, int32_t *words) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, per_image = g->out_h * g->out_w, row_bytes = g->filter_w * c;
  const int32_t b = pixel / per_image, oy = pixel % per_image / g->out_w, ox = pixel % g->out_w;
  const int8_t *image = input + b * g->in_h * g->in_w * c;
  const int32_t zero_point = -p->input_offset;
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
  pair_packer s = {words, 0, 0, 0};
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      put_copies(&s, zero_point, row_bytes);
      continue;
    }
    const int8_t *row = image + iy * g->in_w * c;
    if (g->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      const int32_t left = x0 < 0 ? -x0 : 0, lo = left < g->filter_w ? left : g->filter_w;
      const int32_t end = g->in_w - x0 < g->filter_w ? g->in_w - x0 : g->filter_w, hi = end > lo ? end : lo;
      put_copies(&s, zero_point, lo * c);
      put_taps(&s, row + (x0 + lo) * c, (hi - lo) * c);
      put_copies(&s, zero_point, (g->filter_w - hi) * c);
      continue;
    }
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) {
        put_copies(&s, zero_point, c);
      } else {
        put_taps(&s, row + ix * c, c);
      }
    }
  }
  put_copies(&s, 0, 2 * p->pairs - p->taps);
  return s.sum;
}

/* acc[4i + q] = bias[q] + term[i] + sum over pairs k of window i's taps 2k, 2k + 1 times filter q's
 * weights, from the stored (negated) weights into negated accumulators: each pair in [-2^15, 2^15),
 * |acc| bounded by the caller. */
static void dot_4x4(const int32_t *x, const int32_t *w, int32_t pairs, const int32_t *bias, const int32_t term[4],
                    int32_t acc[16]) {
  int32_t a[16];
  for (int32_t k = 0; k < 16; ++k) a[k] = -(bias[k % 4] + term[k / 4]);
  for (const int32_t *end = x + 4 * pairs; x != end; x += 4, w += 4) {
    const int32_t u0 = x[0], u1 = x[1], u2 = x[2], u3 = x[3];
    const int32_t v0 = w[0], v1 = w[1], v2 = w[2], v3 = w[3];
    mote_accumulate(&a[0], mote_pair_dot(u0, v0)), mote_accumulate(&a[1], mote_pair_dot(u0, v1));
    mote_accumulate(&a[2], mote_pair_dot(u0, v2)), mote_accumulate(&a[3], mote_pair_dot(u0, v3));
    mote_accumulate(&a[4], mote_pair_dot(u1, v0)), mote_accumulate(&a[5], mote_pair_dot(u1, v1));
    mote_accumulate(&a[6], mote_pair_dot(u1, v2)), mote_accumulate(&a[7], mote_pair_dot(u1, v3));
    mote_accumulate(&a[8], mote_pair_dot(u2, v0)), mote_accumulate(&a[9], mote_pair_dot(u2, v1));
    mote_accumulate(&a[10], mote_pair_dot(u2, v2)), mote_accumulate(&a[11], mote_pair_dot(u2, v3));
    mote_accumulate(&a[12], mote_pair_dot(u3, v0)), mote_accumulate(&a[13], mote_pair_dot(u3, v1));
    mote_accumulate(&a[14], mote_pair_dot(u3, v2)), mote_accumulate(&a[15], mote_pair_dot(u3, v3));
  }
  for (int32_t k = 0; k < 16; ++k) acc[k] = -a[k];
}

/* One pixel's outputs, its window packed at words[4k] (k < pairs) with `term`, four channels at a time
 * (mote_dot_1x4_pairs on the negated weights and bias). */
static void one_pixel(const mote_conv_offset_blocked_params *p, const int32_t *words, int32_t term, int8_t *out) {
  const int32_t m = p->geometry.out_ch, pairs = p->pairs;
  for (int32_t oc = 0; oc < m; oc += 4) {
    const int32_t start[4] = {-(p->bias[oc] + term), -(p->bias[oc + 1] + term), -(p->bias[oc + 2] + term),
                              -(p->bias[oc + 3] + term)};
    int32_t acc[16]; /* acc[q] for the one pixel (mote_store_block_4x4 takes a block's) */
    mote_dot_1x4_pairs(words, p->weights + oc * pairs, pairs, start, acc);
    for (int32_t q = 0; q < 4; ++q) acc[q] = -acc[q];
    const int32_t channels = m - oc < 4 ? m - oc : 4;
    mote_store_block_4x4(p->output_stage, p->output_offset, p->act_min, p->act_max, acc, oc, 1, channels, out + oc, m);
  }
}

mote_status mote_conv_offset_blocked_s8(const mote_conv_offset_blocked_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t pairs = p->pairs, m = g->out_ch;
  if (pairs <= 0 || pairs % 2 != 0 || 2 * pairs < p->taps || scratch.size < (size_t)(16 * pairs)) {
    return MOTE_ERROR;
  }
  int32_t *words = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  const int32_t pixels = g->batches * g->out_h * g->out_w;
  for (int32_t px = 0; px < pixels; px += 4) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    int32_t term[4]; /* filter_offset * the sum of each window's raw taps: |term| <= taps * 128 * 128 */
    for (int32_t i = 0; i < count; ++i) term[i] = p->filter_offset * gather(p, input, px + i, words + i);
    int8_t *out = output + px * m;
    if (count < 4) { /* the last pixels, each by itself (a layer of one pixel: a classifier's logits) */
      for (int32_t i = 0; i < count; ++i) one_pixel(p, words + i, term[i], out + i * m);
      continue;
    }
    mote_block_out how = {out, p->output_stage, m, p->output_offset, p->act_min, p->act_max};
    for (int32_t oc = 0; oc < m; oc += 4) {
      /* The bias holds input_offset * filter_offset * taps, the term the rest of S * filter_offset. */
      int32_t acc[16];
      dot_4x4(words, p->weights + oc * pairs, pairs, p->bias + oc, term, acc);
      const int32_t channels = m - oc < 4 ? m - oc : 4;
      if (channels == 4) {
        how.out = out + oc, how.stage = p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS;
        mote_block_out_4x4(&how, acc);
      } else {
        mote_store_block_4x4(p->output_stage, p->output_offset, p->act_min, p->act_max, acc, oc, 4, channels,
                             out + oc, m);
      }
    }
  }
  return MOTE_OK;
}

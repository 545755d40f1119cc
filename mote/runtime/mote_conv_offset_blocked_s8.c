#include "mote_conv_offset_blocked_s8.h"

#include "mote_conv_common.h"
#include "mote_dot_pairs_terms_4x4_s8.h"

/* A window's taps appended span by span as pairs x0 * 2^16 + x1, pair k at words[4k] (one pixel of a
 * block of four), with the sum of the taps: a span of odd length leaves its last tap pending, the
 * first of the next pair. */
typedef struct {
  int32_t *words;
  int32_t sum, first, pending;
} pair_packer;

/* n taps from src, four at a time where it can. */
static inline void put_taps(pair_packer *s, const int8_t *src, int32_t n) {
  int32_t *w = s->words, sum = s->sum;
  if (n > 0 && s->pending) {
    const int32_t x = *src++;
    *w = s->first * 65536 + x, w += 4, sum += x;
    --n, s->pending = 0;
  }
  for (; n >= 4; n -= 4, src += 4, w += 8) {
    const int32_t x0 = src[0], x1 = src[1], x2 = src[2], x3 = src[3];
    w[0] = x0 * 65536 + x1, w[4] = x2 * 65536 + x3, sum += (x0 + x1) + (x2 + x3);
  }
  if (n >= 2) {
    const int32_t x0 = src[0], x1 = src[1];
    *w = x0 * 65536 + x1, w += 4, sum += x0 + x1, n -= 2, src += 2;
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

/* The constants of the windows' walk, computed once a call (the packed words' stores could alias *p, which
 * would have them loaded and computed again for every window). */
typedef struct {
  int32_t c, row_bytes, row_step, image_bytes, fh, row_jump, zero_taps, zero_point;
  int32_t last_row;  /* (filter_h - 1) * dilation_h */
  int32_t last_x;    /* the last window origin column whose taps are all inside a row, -1 when dilated across */
  int32_t col_step;  /* stride_w * in_ch */
} window_walk;

static window_walk window_walk_of(const mote_conv_offset_blocked_params *p) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, row_step = g->in_w * c;
  const window_walk k = {c, g->filter_w * c, row_step, g->in_h * row_step, g->filter_h, g->dilation_h * row_step,
                         2 * p->pairs - p->taps, -p->input_offset, (g->filter_h - 1) * g->dilation_h,
                         g->dilation_w == 1 ? g->in_w - g->filter_w : -1, g->stride_w * c};
  return k;
}

/* An output pixel's position, advanced in raster order without divisions, with its window's first row and
 * column (negative in the padding) and the offset of its first tap from the input's first byte. */
typedef struct {
  int32_t b, oy, ox, y0, x0, origin;
} pixel_pos;

static void start_row(const mote_conv_geometry *g, const window_walk *k, pixel_pos *at) {
  at->ox = 0, at->x0 = -g->pad_left;
  at->origin = at->b * k->image_bytes + at->y0 * k->row_step + at->x0 * k->c;
}

static void next_pixel(const mote_conv_geometry *g, const window_walk *k, pixel_pos *at) {
  if (++at->ox < g->out_w) {
    at->x0 += g->stride_w, at->origin += k->col_step;
    return;
  }
  if (++at->oy < g->out_h) {
    at->y0 += g->stride_h;
  } else {
    at->oy = 0, at->y0 = -g->pad_top, ++at->b;
  }
  start_row(g, k, at);
}

/* A window inside the input, fh runs of n taps from row on (row_jump apart), packed as put_taps would, then
 * zero_taps zero taps; returns the sum of its taps, from the sum of its pair words x0 * 2^16 + x1: that is
 * A * 2^16 + B, A and B the sums of the pairs' first and second taps, exact in int32 and |B| < 2^15 for
 * fewer than 256 pairs (one add per pair instead of two). */
#if defined(__GNUC__)
#define MOTE_WINDOW_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_WINDOW_INLINE static inline
#endif

MOTE_WINDOW_INLINE int32_t inside_window(const int8_t *row, int32_t n, int32_t row_jump, int32_t fh, int32_t *w,
                                         int32_t zero_taps) {
  uint32_t total = 0; /* modulo 2^32: the exact sum is within int32 */
  int32_t first = 0, pending = 0;
  for (int32_t fy = 0; fy < fh; ++fy, row += row_jump) {
    const int8_t *src = row;
    int32_t k = n;
    if (pending) {
      const int32_t word = first * 65536 + *src++;
      *w = word, w += 4, total += (uint32_t)word, --k, pending = 0;
    }
    for (; k >= 4; k -= 4, src += 4, w += 8) {
      const int32_t w0 = src[0] * 65536 + src[1], w1 = src[2] * 65536 + src[3];
      w[0] = w0, w[4] = w1, total += (uint32_t)w0 + (uint32_t)w1;
    }
    if (k >= 2) {
      const int32_t word = src[0] * 65536 + src[1];
      *w = word, w += 4, total += (uint32_t)word, k -= 2, src += 2;
    }
    if (k == 1) first = *src, pending = 1;
  }
  if (pending) *w = first * 65536, w += 4, total += (uint32_t)(first * 65536), --zero_taps;
  for (; zero_taps > 0; zero_taps -= 2, w += 4) *w = 0;
  const int32_t words = (int32_t)total, a = (words + 32768) >> 16;
  return a + (words - a * 65536);
}

/* The window of the pixel at `at` (HWC tap order, taps outside the input holding the zero point) packed
 * in pairs into words[4k], zero taps after it up to 2 * pairs; returns the sum of its taps. */
static int32_t gather(const mote_conv_offset_blocked_params *p, const window_walk *k, const int8_t *input,
                      const pixel_pos *at, int32_t *words) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = k->c, row_bytes = k->row_bytes, row_step = k->row_step, fh = k->fh;
  const int32_t row_jump = k->row_jump, zero_taps = k->zero_taps, zero_point = k->zero_point;
  const int32_t y0 = at->y0, x0 = at->x0;
  pair_packer s = {words, 0, 0, 0};
  if (y0 >= 0 && y0 + k->last_row < g->in_h && x0 >= 0 && x0 <= k->last_x) {
    /* inside the input, as most windows are: a run of taps per filter row */
    const int8_t *row = input + at->origin;
    if (p->pairs < 256) {
      /* a 3x3 window of three channels (an RGB image's first layer): laid out straight by the compiler */
      if (row_bytes == 9 && fh == 3) return inside_window(row, 9, row_jump, 3, words, zero_taps);
      return inside_window(row, row_bytes, row_jump, fh, words, zero_taps);
    }
    for (int32_t fy = 0; fy < fh; ++fy, row += row_jump) put_taps(&s, row, row_bytes);
    put_copies(&s, 0, zero_taps);
    return s.sum;
  }
  const int8_t *image = input + at->b * k->image_bytes;
  if (row_bytes == 9 && fh == 3 && g->dilation_w == 1 && p->pairs < 256) {
    /* the 3x3 RGB window at a border: copied with the zero point around it, then packed as one inside */
    int8_t window[27];
    for (int32_t t = 0; t < 27; ++t) window[t] = (int8_t)zero_point;
    for (int32_t fy = 0; fy < 3; ++fy) {
      const int32_t iy = y0 + fy * g->dilation_h;
      if (iy < 0 || iy >= g->in_h) continue;
      for (int32_t fx = 0; fx < 3; ++fx) {
        const int32_t ix = x0 + fx;
        if (ix < 0 || ix >= g->in_w) continue;
        const int8_t *src = image + iy * row_step + ix * 3;
        int8_t *dst = window + 9 * fy + 3 * fx;
        dst[0] = src[0], dst[1] = src[1], dst[2] = src[2];
      }
    }
    return inside_window(window, 9, 9, 3, words, zero_taps);
  }
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      put_copies(&s, zero_point, row_bytes);
      continue;
    }
    const int8_t *row = image + iy * row_step;
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

/* mote_output_of_any for channel oc, out of line: its paths besides the one-multiply one. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int8_t channel_output_rest(const mote_conv_offset_blocked_params *p, int32_t oc, int32_t acc) {
  const mote_output_channel s = mote_output_channel_at(p->output_stage, oc, p->output_offset, p->act_min,
                                                       p->act_max);
  return mote_output_of_any(acc, &s);
}

/* A 1x1 convolution of fewer than four pixels (a classifier's logits on one pixel): each pixel packed in
 * tap pairs by itself (into words[k]), then four channels at a time its pairs summed and the outputs
 * requantized, without the blocks' bookkeeping or work for missing pixels. */
static void few_pixels(const mote_conv_offset_blocked_params *p, const int8_t *input, int32_t pixels,
                       int32_t *words, int8_t *output) {
  const int32_t pairs = p->pairs, m = p->geometry.out_ch, c = p->geometry.in_ch;
  for (int32_t px = 0; px < pixels; ++px, input += c, output += m) {
    int32_t sum = 0, k = 0;
    for (; 2 * k + 1 < c; ++k) {
      const int32_t x0 = input[2 * k], x1 = input[2 * k + 1];
      words[4 * k] = x0 * 65536 + x1, sum += x0 + x1;
    }
    if (c % 2 != 0) words[4 * k] = input[c - 1] * 65536, sum += input[c - 1], ++k;
    for (; k < pairs; ++k) words[4 * k] = 0;
    const int32_t *w = p->weights, *b = p->bias;
    for (int32_t oc = 0; oc < m; oc += 4, w += 4 * pairs, b += 8) {
      const int32_t start[4] = {b[0] + b[4] * sum, b[1] + b[5] * sum, b[2] + b[6] * sum, b[3] + b[7] * sum};
      int32_t acc[4];
      mote_dot_1x4_pairs(words, w, pairs, start, acc);
      const int32_t n = m - oc < 4 ? m - oc : 4;
      for (int32_t j = 0; j < n; ++j) {
        const mote_output_channel s = mote_output_channel_at(p->output_stage, oc + j, p->output_offset, p->act_min,
                                                             p->act_max);
        output[oc + j] = MOTE_LIKELY(acc[j] > s.fast_after) ? mote_output_positive(acc[j], &s)
                                                            : channel_output_rest(p, oc + j, acc[j]);
      }
    }
  }
}

/* The outputs of a block of `count` pixels (their windows in `words`, their taps' sums in `sums`) for every
 * output channel: whole sets of four straight from the inner loop, MOTE_CONV_OFFSET_BLOCKED_BATCH sets
 * per call; the last set of fewer than four channels through a buffer; the pixels of a short block each
 * by itself. */
static void block_outputs(const mote_conv_offset_blocked_params *p, const int32_t *words, int32_t count,
                          const int32_t sums[4], int8_t *out) {
  const int32_t pairs = p->pairs, m = p->geometry.out_ch, whole = count == 4 ? m / 4 : 0;
  mote_block_out how = {out, p->output_stage, m, p->output_offset, p->act_min, p->act_max};
  for (int32_t q = 0; q < whole; q += MOTE_CONV_OFFSET_BLOCKED_BATCH) {
    const int32_t oc = 4 * q;
    const int32_t sets = whole - q < MOTE_CONV_OFFSET_BLOCKED_BATCH ? whole - q : MOTE_CONV_OFFSET_BLOCKED_BATCH;
    how.out = out + oc, how.stage = p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS;
    mote_dot_pairs_terms_4x4_s8(words, p->weights + oc * pairs, pairs / 2, p->runs + p->run_start[q],
                                p->bias + 2 * oc, sets, &how, sums);
  }
  for (int32_t oc = 4 * whole; oc < m; oc += 4) {
    const int32_t channels = m - oc < 4 ? m - oc : 4;
    if (count == 4) {
      int8_t part[16];
      const mote_block_out into = {part, p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS, 4, p->output_offset,
                                   p->act_min, p->act_max};
      mote_dot_pairs_terms_4x4_s8(words, p->weights + oc * pairs, pairs / 2, p->runs + p->run_start[oc / 4],
                                  p->bias + 2 * oc, 1, &into, sums);
      mote_block_copy(part, 4, channels, out + oc, m);
      continue;
    }
    int32_t acc[16];
    for (int32_t i = 0; i < count; ++i) {
      const int32_t *b = p->bias + 2 * oc; /* the four biases, then the four scales */
      const int32_t start[4] = {b[0] + b[4] * sums[i], b[1] + b[5] * sums[i], b[2] + b[6] * sums[i],
                                b[3] + b[7] * sums[i]};
      mote_dot_1x4_pairs(words + i, p->weights + oc * pairs, pairs, start, acc + 4 * i);
    }
    mote_store_block_4x4(p->output_stage, p->output_offset, p->act_min, p->act_max, acc, oc, count, channels,
                         out + oc, m);
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
  const int32_t pixels = g->batches * g->out_h * g->out_w, c = g->in_ch;
  const int pointwise = g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 && g->stride_w == 1;
  if (pointwise && pixels < 4) {
    few_pixels(p, input, pixels, words, output);
    return MOTE_OK;
  }
  const window_walk walk = window_walk_of(p);
  pixel_pos at = {0, 0, 0, -g->pad_top, 0, 0};
  start_row(g, &walk, &at);
  for (int32_t px = 0; px < pixels; px += 4) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    /* the sum of each window's raw taps, |sum| <= taps * 128: its product with a filter's sum scale is the
     * part of s * (the window's taps + input_offset) the bias does not hold */
    int32_t sums[4] = {0, 0, 0, 0};
    for (int32_t i = 0; i < 4; ++i) {
      pair_packer s = {words + i, 0, 0, 0};
      if (i >= count) { /* a missing pixel of the last block: computed, not stored */
        put_copies(&s, 0, 2 * pairs);
      } else if (pointwise) { /* 1x1: the pixel itself */
        put_taps(&s, input + (px + i) * c, c);
        put_copies(&s, 0, 2 * pairs - p->taps);
        sums[i] = s.sum;
      } else {
        sums[i] = gather(p, &walk, input, &at, words + i);
        next_pixel(g, &walk, &at);
      }
    }
    block_outputs(p, words, count, sums, output + px * m);
  }
  return MOTE_OK;
}

#include "mote_conv_blocked_s8.h"

#include "mote_conv_common.h"

/* An output pixel's position, advanced in raster order without divisions. */
typedef struct {
  int32_t b, oy, ox;
} pixel_pos;

static void next_pixel(const mote_conv_blocked_params *p, pixel_pos *at) {
  const mote_conv_geometry *g = &p->geometry;
  if (++at->ox < g->out_w) return;
  at->ox = 0;
  if (++at->oy < g->out_h) return;
  at->oy = 0;
  ++at->b;
}

/* col[4 * t] = n copies of byte v, for t < n. */
static void fill4(int8_t *col, int8_t v, int32_t n) {
  for (int32_t t = 0; t < n; ++t) col[4 * t] = v;
}

/* col[4 * t] = src[t], for t < n. */
static void copy4(int8_t *col, const int8_t *src, int32_t n) {
  int32_t t = 0;
  for (; t + 4 <= n; t += 4) {
    col[4 * t] = src[t], col[4 * t + 4] = src[t + 1], col[4 * t + 8] = src[t + 2], col[4 * t + 12] = src[t + 3];
  }
  for (; t < n; ++t) col[4 * t] = src[t];
}

/* The filter columns [lo, hi) of a window starting at input column x0 that lie inside the input
 * (hi == lo when none do), without dilation. */
static void inside_columns(const mote_conv_geometry *g, int32_t x0, int32_t *lo, int32_t *hi) {
  const int32_t first = x0 < 0 ? -x0 : 0, last = g->in_w - x0 < g->filter_w ? g->in_w - x0 : g->filter_w;
  *lo = first;
  *hi = last > first ? last : first;
}

/* The window of the pixel at `at`, tap t at col[4 * t]. */
static void gather(const mote_conv_blocked_params *p, const int8_t *input, const pixel_pos *at, int8_t *col) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, row_bytes = g->filter_w * c;
  const int8_t *image = input + at->b * g->in_h * g->in_w * c;
  const int8_t zero_point = (int8_t)-p->input_offset; /* reads as 0 after the offset */
  const int32_t y0 = at->oy * g->stride_h - g->pad_top, x0 = at->ox * g->stride_w - g->pad_left;
  for (int32_t fy = 0; fy < g->filter_h; ++fy, col += 4 * row_bytes) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      fill4(col, zero_point, row_bytes);
      continue;
    }
    const int8_t *row = image + iy * g->in_w * c;
    if (g->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      int32_t lo, hi;
      inside_columns(g, x0, &lo, &hi);
      fill4(col, zero_point, lo * c);
      copy4(col + 4 * lo * c, row + (x0 + lo) * c, (hi - lo) * c);
      fill4(col + 4 * hi * c, zero_point, (g->filter_w - hi) * c);
      continue;
    }
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) {
        fill4(col + 4 * fx * c, zero_point, c);
      } else {
        copy4(col + 4 * fx * c, row + ix * c, c);
      }
    }
  }
}

/* The outputs of a block: acc[4 * i + j] for pixel i < count and channel oc + j, j < channels, each
 * channel's output stage loaded once. */
static void store_block(const mote_conv_blocked_params *p, const int32_t acc[16], int32_t oc, int32_t count,
                        int32_t channels, int8_t *out, int32_t m) {
  for (int32_t j = 0; j < channels; ++j, ++acc, ++out) {
    const mote_output_channel s =
        mote_output_channel_at(p->output_stage, oc + j, p->output_offset, p->act_min, p->act_max);
    for (int32_t i = 0; i < count; ++i) out[i * m] = mote_output_of(acc[4 * i], s);
  }
}

/* words[4 * k] = n copies of v, for k < n. */
static void fill_words(int32_t *words, int32_t v, int32_t n) {
  for (int32_t k = 0; k < n; ++k) words[4 * k] = v;
}

/* words[4 * k] = the pair src[2k], src[2k + 1] packed for mote_pair_dot, for k < n. */
static void copy_pairs(int32_t *words, const int8_t *src, int32_t n) {
  int32_t k = 0;
  for (; k + 2 <= n; k += 2) {
    words[4 * k] = src[2 * k] * 65536 + src[2 * k + 1], words[4 * k + 4] = src[2 * k + 2] * 65536 + src[2 * k + 3];
  }
  for (; k < n; ++k) words[4 * k] = src[2 * k] * 65536 + src[2 * k + 1];
}

/* The window of the pixel at `at` packed in pairs, pair k at words[4 * k], straight from the input:
 * for an even in_ch without horizontal dilation, where every run of taps (a filter row's padding
 * or its pixels inside the input) is whole pairs. */
static void gather_pairs(const mote_conv_blocked_params *p, const int8_t *input, const pixel_pos *at,
                         int32_t *words) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t half = g->in_ch / 2, row_pairs = g->filter_w * half;
  const int8_t *image = input + at->b * g->in_h * g->in_w * g->in_ch;
  const int32_t zero_point = -p->input_offset, zero_pair = zero_point * 65536 + zero_point;
  const int32_t y0 = at->oy * g->stride_h - g->pad_top, x0 = at->ox * g->stride_w - g->pad_left;
  for (int32_t fy = 0; fy < g->filter_h; ++fy, words += 4 * row_pairs) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      fill_words(words, zero_pair, row_pairs);
      continue;
    }
    int32_t lo, hi;
    inside_columns(g, x0, &lo, &hi);
    fill_words(words, zero_pair, lo * half);
    copy_pairs(words + 4 * lo * half, image + (iy * g->in_w + x0 + lo) * g->in_ch, (hi - lo) * half);
    fill_words(words + 4 * hi * half, zero_pair, (g->filter_w - hi) * half);
  }
}

/* words[4 * k + i] = window i's taps 2k and 2k + 1 (col[8k + i] and col[8k + 4 + i]) packed for
 * mote_pair_dot, k < pairs. */
static void pack_pairs(const int8_t *col, int32_t pairs, int32_t *words) {
  for (int32_t k = 0; k < pairs; ++k, col += 8, words += 4) {
    words[0] = col[0] * 65536 + col[4], words[1] = col[1] * 65536 + col[5];
    words[2] = col[2] * 65536 + col[6], words[3] = col[3] * 65536 + col[7];
  }
}

mote_status mote_conv_blocked_s8(const mote_conv_blocked_params *p, const int8_t *input, int8_t *output,
                                 mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t pairs = p->pairs, n = 2 * pairs, m = g->out_ch;
  if (n < p->taps || pairs % 2 != 0 || pairs <= 0 || scratch.size < (size_t)(24 * pairs)) return MOTE_ERROR;
  int32_t *words = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int8_t *col = scratch.buf + 16 * pairs;
  const int32_t pixels = g->batches * g->out_h * g->out_w;
  const int direct = g->in_ch % 2 == 0 && g->dilation_w == 1; /* windows packed straight from the input */
  pixel_pos at = {0, 0, 0};
  for (int32_t px = 0; px < pixels; px += 4) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    for (int32_t i = 0; i < 4; ++i) {
      if (i >= count) { /* a missing pixel of the last block: computed, not stored */
        if (direct) {
          fill_words(words + i, 0, pairs);
        } else {
          fill4(col + i, 0, n);
        }
        continue;
      }
      if (direct) {
        gather_pairs(p, input, &at, words + i);
        fill_words(words + 4 * (p->taps / 2) + i, 0, pairs - p->taps / 2); /* padding pairs meet zero weights */
      } else {
        gather(p, input, &at, col + i);
        fill4(col + 4 * p->taps + i, 0, n - p->taps);
      }
      next_pixel(p, &at);
    }
    if (!direct) pack_pairs(col, pairs, words);
    int8_t *out = output + px * m;
    for (int32_t oc = 0; oc < m; oc += 4) {
      const int32_t *bias = p->bias + oc;
      int32_t acc[16];
      for (int32_t i = 0; i < 4; ++i) {
        acc[4 * i] = bias[0], acc[4 * i + 1] = bias[1], acc[4 * i + 2] = bias[2], acc[4 * i + 3] = bias[3];
      }
      mote_dot_4x4_pairs(words, p->weights + oc * pairs, pairs, acc);
      store_block(p, acc, oc, count, m - oc < 4 ? m - oc : 4, out + oc, m);
    }
  }
  return MOTE_OK;
}

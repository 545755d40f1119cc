#include "mote_conv_blocked_s8.h"

#include "mote_conv_common.h"
#include "mote_dot_pairs_4x4_s8.h"

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

/* A window's taps, appended run by run, packed in pairs for mote_pair_dot: pair k at words[4 * k]
 * (the four pixels of a block interleaved). A run of odd length leaves its last byte as the next
 * pair's first. */
typedef struct {
  int32_t *words;
  int32_t first; /* the pending first byte of a pair, if pending */
  int pending;
} pair_stream;

/* n taps from src. */
static void put_taps(pair_stream *s, const int8_t *src, int32_t n) {
  int32_t *w = s->words;
  if (n > 0 && s->pending) {
    *w = s->first * 65536 + *src++, w += 4;
    --n, s->pending = 0;
  }
  for (; n >= 4; n -= 4, src += 4, w += 8) w[0] = src[0] * 65536 + src[1], w[4] = src[2] * 65536 + src[3];
  if (n >= 2) *w = src[0] * 65536 + src[1], w += 4, n -= 2, src += 2;
  if (n == 1) s->first = *src, s->pending = 1;
  s->words = w;
}

/* n taps of value v. */
static void put_copies(pair_stream *s, int32_t v, int32_t n) {
  int32_t *w = s->words;
  if (n > 0 && s->pending) {
    *w = s->first * 65536 + v, w += 4;
    --n, s->pending = 0;
  }
  for (; n >= 2; n -= 2, w += 4) *w = v * 65536 + v;
  if (n == 1) s->first = v, s->pending = 1;
  s->words = w;
}

/* The filter columns [lo, hi) of a window starting at input column x0 that lie inside the input
 * (hi == lo when none do), without dilation. */
static void inside_columns(const mote_conv_geometry *g, int32_t x0, int32_t *lo, int32_t *hi) {
  const int32_t first = x0 < 0 ? -x0 : 0, last = g->in_w - x0 < g->filter_w ? g->in_w - x0 : g->filter_w;
  *lo = first;
  *hi = last > first ? last : first;
}

/* The window of a pixel inside the input, undilated: `rows` filter rows of row_bytes taps each, row_step bytes
 * apart from src, packed in pairs from words[0] on (a pair may span two rows), then zero pairs up to `pairs`.
 * What gather packs for such a window, in a plain loop: two taps, one word. */
static void gather_inside(const int8_t *src, int32_t row_step, int32_t rows, int32_t row_bytes, int32_t pairs,
                          int32_t *words) {
  int32_t *w = words, first = 0, pending = 0;
  for (int32_t r = 0; r < rows; ++r, src += row_step) {
    const int8_t *s = src, *end = src + row_bytes;
    if (pending) *w = first * 65536 + *s++, w += 4, pending = 0;
    for (; end - s >= 4; s += 4, w += 8) w[0] = s[0] * 65536 + s[1], w[4] = s[2] * 65536 + s[3];
    if (end - s >= 2) *w = s[0] * 65536 + s[1], w += 4, s += 2;
    if (s < end) first = *s, pending = 1;
  }
  if (pending) *w = first * 65536, w += 4;
  for (int32_t *last = words + 4 * pairs; w < last; w += 4) *w = 0;
}

/* The window of the pixel at `at` (taps outside the input holding the zero point) packed in pairs
 * from words[0] on, then zero pairs up to `pairs`: the padding taps meet zero weights. */
static void gather(const mote_conv_blocked_params *p, const int8_t *input, const pixel_pos *at, int32_t pairs,
                   int32_t *words) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, row_bytes = g->filter_w * c;
  const int8_t *image = input + at->b * g->in_h * g->in_w * c;
  const int32_t zero_point = -p->input_offset; /* reads as 0 after the offset */
  const int32_t y0 = at->oy * g->stride_h - g->pad_top, x0 = at->ox * g->stride_w - g->pad_left;
  pair_stream s = {words, 0, 0};
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      put_copies(&s, zero_point, row_bytes);
      continue;
    }
    const int8_t *row = image + iy * g->in_w * c;
    if (g->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      int32_t lo, hi;
      inside_columns(g, x0, &lo, &hi);
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
  put_copies(&s, 0, 2 * pairs - p->taps);
}

/* The outputs of a block of `count` pixels (their windows in `words`) for every output channel: whole
 * sets of four straight from the inner loop, MOTE_CONV_BLOCKED_BATCH sets per call; the last set of
 * fewer than four channels through a buffer; the pixels of a short block each by itself. */
static void block_outputs(const mote_conv_blocked_params *p, const int32_t *words, int32_t count, int8_t *out) {
  const int32_t pairs = p->pairs, m = p->geometry.out_ch, whole = count == 4 ? m / 4 : 0;
  mote_block_out how = {out, p->output_stage, m, p->output_offset, p->act_min, p->act_max, p->rest};
  for (int32_t q = 0; q < whole; q += MOTE_CONV_BLOCKED_BATCH) {
    const int32_t oc = 4 * q, sets = whole - q < MOTE_CONV_BLOCKED_BATCH ? whole - q : MOTE_CONV_BLOCKED_BATCH;
    how.out = out + oc, how.stage = p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS;
    mote_dot_pairs_4x4_s8(words, p->weights + oc * pairs, pairs / 2, p->runs + p->run_start[q], p->bias + oc,
                          sets, &how);
  }
  for (int32_t oc = 4 * whole; oc < m; oc += 4) {
    const int32_t channels = m - oc < 4 ? m - oc : 4;
    if (count == 4) {
      int8_t part[16];
      const mote_block_out into = {part, p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS, 4, p->output_offset,
                                   p->act_min, p->act_max, p->rest};
      mote_dot_pairs_4x4_s8(words, p->weights + oc * pairs, pairs / 2, p->runs + p->run_start[oc / 4], p->bias + oc,
                            1, &into);
      mote_block_copy(part, 4, channels, out + oc, m);
      continue;
    }
    int32_t acc[16];
    for (int32_t i = 0; i < count; ++i) {
      mote_dot_1x4_pairs(words + i, p->weights + oc * pairs, pairs, p->bias + oc, acc + 4 * i);
    }
    mote_store_block_4x4(p->output_stage, p->output_offset, p->act_min, p->act_max, p->rest, acc, oc, count, channels,
                         out + oc, m);
  }
}

mote_status mote_conv_blocked_s8(const mote_conv_blocked_params *p, const int8_t *input, int8_t *output,
                                 mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t pairs = p->pairs, n = 2 * pairs, m = g->out_ch;
  if (n < p->taps || pairs % 2 != 0 || pairs <= 0 || scratch.size < (size_t)(16 * pairs)) return MOTE_ERROR;
  int32_t *words = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  /* A 1x1 convolution at stride 1 reads four consecutive pixels, and may go from the last block to
   * the first (so that an output larger than its input can start where the input starts). */
  const int pointwise = g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 && g->stride_w == 1;
  const int32_t pixels = g->batches * g->out_h * g->out_w, last = (pixels - 1) / 4 * 4;
  const int32_t step = pointwise && p->reverse ? -4 : 4;
  /* undilated: a window inside the input is filter_h runs of filter_w * in_ch bytes (gather_inside) */
  const int inside = g->dilation_h == 1 && g->dilation_w == 1;
  const int32_t pixel_step = g->stride_w * g->in_ch;
  pixel_pos at = {0, 0, 0};
  for (int32_t px = step > 0 ? 0 : last; px >= 0 && px < pixels; px += step) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    for (int32_t i = 0; i < 4; ++i) {
      pair_stream s = {words + i, 0, 0};
      if (i >= count) { /* a missing pixel of the last block: computed, not stored */
        put_copies(&s, 0, 2 * pairs);
      } else if (pointwise) {
        put_taps(&s, input + (px + i) * g->in_ch, p->taps);
        put_copies(&s, 0, 2 * pairs - p->taps);
      } else if (i == 0 && count == 4 && inside) {
        /* four pixels of one row whose windows lie inside the input */
        const int32_t y0 = at.oy * g->stride_h - g->pad_top, x0 = at.ox * g->stride_w - g->pad_left;
        if (y0 >= 0 && y0 + g->filter_h <= g->in_h && x0 >= 0 && at.ox + 3 < g->out_w &&
            x0 + 3 * g->stride_w + g->filter_w <= g->in_w) {
          const int8_t *src = input + ((at.b * g->in_h + y0) * g->in_w + x0) * g->in_ch;
          for (int32_t k = 0; k < 4; ++k, src += pixel_step) {
            gather_inside(src, g->in_w * g->in_ch, g->filter_h, g->filter_w * g->in_ch, pairs, words + k);
          }
          at.ox += 3; /* the fourth pixel's position: next_pixel moves on from it */
          next_pixel(p, &at);
          break;
        }
        gather(p, input, &at, pairs, words + i);
        next_pixel(p, &at);
      } else {
        gather(p, input, &at, pairs, words + i);
        next_pixel(p, &at);
      }
    }
    block_outputs(p, words, count, output + px * m);
  }
  return MOTE_OK;
}

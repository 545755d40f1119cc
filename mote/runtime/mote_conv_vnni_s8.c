#include "mote_conv_vnni_s8.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* dst[0, n) = src[0, n), or = value where src is NULL: 64 bytes at a time, the last ones under a mask
 * (a window's rows are a few dozen bytes: a library call would cost more than the copy). */
__attribute__((target("avx512f,avx512bw"))) static void put(int8_t *dst, const int8_t *src, int value, int32_t n) {
  const __m512i fill = _mm512_set1_epi8((char)value);
  for (int32_t i = 0; i < n; i += 64) { /* nothing at all for n <= 0 */
    const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    _mm512_mask_storeu_epi8(dst + i, k, src ? _mm512_maskz_loadu_epi8(k, src + i) : fill);
  }
}

/* Copies the window of output pixel (oy, ox) of image b (HWC tap order) to col[0, taps), padding
 * taps as the zero point, then zeros up to taps4 (which meet zero weights). */
__attribute__((target("avx512f,avx512bw"))) static void gather(const mote_conv_vnni_params *p, const int8_t *input,
                                                                  int32_t b, int32_t oy, int32_t ox, int8_t *col) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch;
  const int8_t *image = input + b * g->in_h * g->in_w * c;
  const int pad = -p->input_offset ^ 0x80; /* the zero point, flipped like the input */
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
  const int32_t row_bytes = g->filter_w * c;
  int8_t *at = col;
  for (int32_t fy = 0; fy < g->filter_h; ++fy, at += row_bytes) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      put(at, NULL, pad, row_bytes);
      continue;
    }
    const int8_t *row = image + iy * g->in_w * c;
    if (g->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      const int32_t lo = x0 < 0 ? (-x0 < g->filter_w ? -x0 : g->filter_w) : 0;
      const int32_t hi = g->in_w - x0 < g->filter_w ? (g->in_w - x0 > lo ? g->in_w - x0 : lo) : g->filter_w;
      put(at, NULL, pad, lo * c);
      put(at + lo * c, row + (x0 + lo) * c, 0, (hi - lo) * c);
      put(at + hi * c, NULL, pad, (g->filter_w - hi) * c);
      continue;
    }
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) {
        put(at + fx * c, NULL, pad, c);
      } else {
        put(at + fx * c, row + ix * c, 0, c);
      }
    }
  }
  put(col + p->taps, NULL, 0, p->taps4 - p->taps);
}

/* gather() for windows of at most 64 taps without horizontal dilation: the window is assembled in
 * one vector, each filter row's bytes inside the input loaded under a mask straight into their
 * place, then written with one full store (64 bytes: the next window's store overwrites what runs
 * past this one), which the dot products' loads can then be forwarded from. */
__attribute__((target("avx512f,avx512bw"))) static void gather_small(const mote_conv_vnni_params *p,
                                                                        const int8_t *input, int32_t b, int32_t oy,
                                                                        int32_t ox, int8_t *col) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, row_bytes = g->filter_w * c;
  const int8_t *image = input + b * g->in_h * g->in_w * c;
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
  const int32_t lo = x0 < 0 ? (-x0 < g->filter_w ? -x0 : g->filter_w) : 0;
  const int32_t hi = g->in_w - x0 < g->filter_w ? (g->in_w - x0 > lo ? g->in_w - x0 : lo) : g->filter_w;
  const __mmask64 taps = p->taps >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << p->taps) - 1);
  __m512i window = _mm512_maskz_mov_epi8(taps, _mm512_set1_epi8((char)(-p->input_offset ^ 0x80)));
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h, start = fy * row_bytes + lo * c, end = fy * row_bytes + hi * c;
    if (iy < 0 || iy >= g->in_h || end == start) continue;
    const __mmask64 k = (end >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << end) - 1)) & ~(((__mmask64)1 << start) - 1);
    /* Lane j of the load reads address base + j: only lanes [start, end) are read, from the row. */
    const uintptr_t base = (uintptr_t)(image + (iy * g->in_w + x0 + lo) * c) - (uintptr_t)start;
    window = _mm512_mask_loadu_epi8(window, k, (const void *)base);
  }
  _mm512_storeu_si512(col, window);
}

/* Sixteen channels' output stage in vector registers, prepared once for all the windows of a block:
 * the first `lanes` channels from c are stored. */
typedef struct {
  __m512i multiplier, odd_multiplier, left, right, mask, half_mask, offset, act_min, act_max;
  __mmask16 valid;
} stage16;

__attribute__((target("avx512f,avx512bw"))) static inline stage16 stage16_at(const mote_conv_vnni_params *p,
                                                                              int32_t c, int32_t lanes) {
  stage16 s;
  s.valid = (__mmask16)((1u << lanes) - 1u);
  s.multiplier = _mm512_maskz_loadu_epi32(s.valid, p->multiplier + c);
  s.odd_multiplier = _mm512_srli_epi64(s.multiplier, 32);
  const __m512i shift = _mm512_maskz_loadu_epi32(s.valid, p->shift + c), zero = _mm512_setzero_si512();
  s.left = _mm512_max_epi32(shift, zero);
  s.right = _mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero);
  s.mask = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), s.right), _mm512_set1_epi32(1));
  s.half_mask = _mm512_srli_epi32(s.mask, 1);
  s.offset = _mm512_set1_epi32(p->output_offset);
  s.act_min = _mm512_set1_epi32(p->act_min);
  s.act_max = _mm512_set1_epi32(p->act_max);
  return s;
}

/* The outputs of sixteen channels from their accumulators, exactly as mote_conv_requantize: TFLite's
 * doubling high multiply as floor((x * m + 2^30) / 2^31) on 64-bit lanes (the saturating case cannot
 * occur for m < 2^31), then its rounding right shift as (v >> r) + (remainder > threshold). */
__attribute__((target("avx512f,avx512bw"))) static inline void output16(const stage16 *s, __m512i acc, int8_t *out) {
  const __m512i x = _mm512_sllv_epi32(acc, s->left); /* wraps like TFLite's int32 product */
  const __m512i half = _mm512_set1_epi64(1ll << 30);
  const __m512i even = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, s->multiplier), half), 31);
  const __m512i odd =
      _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), s->odd_multiplier), half), 31);
  const __m512i v = _mm512_mask_blend_epi32((__mmask16)0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i threshold = _mm512_add_epi32(s->half_mask, _mm512_srli_epi32(v, 31));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, s->mask), threshold);
  __m512i q = _mm512_srav_epi32(v, s->right);
  q = _mm512_mask_add_epi32(q, up, q, _mm512_set1_epi32(1));
  q = _mm512_add_epi32(q, s->offset); /* wraps like TFLite's int32 sum */
  q = _mm512_min_epi32(_mm512_max_epi32(q, s->act_min), s->act_max);
  _mm512_mask_cvtepi32_storeu_epi8(out, s->valid, q);
}

/* Four taps (bytes at x, already x + 128), broadcast to every lane. */
__attribute__((target("avx512f"))) static inline __m512i taps_at(const int8_t *x) {
  int32_t u;
  memcpy(&u, x, 4);
  return _mm512_set1_epi32(u);
}

/* to[i] = from[i] ^ 0x80, i < n: int8 x as the uint8 x + 128. */
__attribute__((target("avx512f,avx512bw"))) static void flip_signs(const int8_t *from, size_t n, int8_t *to) {
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (size_t i = 0; i < n; i += 64) {
    const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    _mm512_mask_storeu_epi8(to + i, k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, from + i), flip));
  }
}

/* Where four windows' taps are: word j of filter tap (r, t) of window i is at
 * x + i * window_step + r * row_step + t * tap_step + 4 * j, in the weights' tap order. */
typedef struct {
  const int8_t *x;
  int32_t window_step, row_step, tap_step;
  int32_t rows, taps, words; /* rows * taps * words == taps4 / 4 */
} four_windows;

/* The four windows by every output channel, sixteen channels per vector, window i's outputs stored
 * at outs[i] (none where it is NULL). */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void convolve(const mote_conv_vnni_params *p,
                                                                            const four_windows *at,
                                                                            int8_t *const outs[4]) {
  const mote_conv_geometry *g = &p->geometry;
  const four_windows win = *at; /* field by field: a copy of the whole struct would wait on its stores */
  const int32_t m = g->out_ch, ws = win.window_step;
  int32_t ob = 0;
  for (; ob + 32 <= p->out_ch16; ob += 32) { /* two blocks: eight independent accumulators */
    __m512i a0 = _mm512_loadu_si512(p->bias + ob), a1 = a0, a2 = a0, a3 = a0;
    __m512i b0 = _mm512_loadu_si512(p->bias + ob + 16), b1 = b0, b2 = b0, b3 = b0;
    const int8_t *w = p->weights + ob * p->taps4, *v = w + 16 * p->taps4;
    for (int32_t r = 0; r < win.rows; ++r) {
      for (int32_t t = 0; t < win.taps; ++t) {
        const int8_t *x = win.x + r * win.row_step + t * win.tap_step;
        for (int32_t j = 0; j < win.words; ++j, x += 4, w += 64, v += 64) {
          const __m512i wa = _mm512_loadu_si512(w), wb = _mm512_loadu_si512(v);
          const __m512i x0 = taps_at(x), x1 = taps_at(x + ws), x2 = taps_at(x + 2 * ws), x3 = taps_at(x + 3 * ws);
          a0 = _mm512_dpbusd_epi32(a0, x0, wa), b0 = _mm512_dpbusd_epi32(b0, x0, wb);
          a1 = _mm512_dpbusd_epi32(a1, x1, wa), b1 = _mm512_dpbusd_epi32(b1, x1, wb);
          a2 = _mm512_dpbusd_epi32(a2, x2, wa), b2 = _mm512_dpbusd_epi32(b2, x2, wb);
          a3 = _mm512_dpbusd_epi32(a3, x3, wa), b3 = _mm512_dpbusd_epi32(b3, x3, wb);
        }
      }
    }
    const __m512i a[4] = {a0, a1, a2, a3}, b[4] = {b0, b1, b2, b3};
    const stage16 sa = stage16_at(p, ob, 16), sb = stage16_at(p, ob + 16, m - ob - 16 < 16 ? m - ob - 16 : 16);
    for (int32_t i = 0; i < 4; ++i) {
      if (outs[i] == NULL) continue;
      output16(&sa, a[i], outs[i] + ob);
      output16(&sb, b[i], outs[i] + ob + 16);
    }
  }
  for (; ob < p->out_ch16; ob += 16) { /* one block: eight accumulators still, over alternate words */
    __m512i a0 = _mm512_loadu_si512(p->bias + ob), a1 = a0, a2 = a0, a3 = a0;
    __m512i b0 = _mm512_setzero_si512(), b1 = b0, b2 = b0, b3 = b0;
    const int8_t *w = p->weights + ob * p->taps4; /* this block's [taps4 / 4][16][4] */
    for (int32_t r = 0; r < win.rows; ++r) {
      for (int32_t t = 0; t < win.taps; ++t) {
        const int8_t *x = win.x + r * win.row_step + t * win.tap_step;
        int32_t j = 0;
        for (; j + 2 <= win.words; j += 2, x += 8, w += 128) {
          const __m512i wa = _mm512_loadu_si512(w), wb = _mm512_loadu_si512(w + 64);
          a0 = _mm512_dpbusd_epi32(a0, taps_at(x), wa), b0 = _mm512_dpbusd_epi32(b0, taps_at(x + 4), wb);
          a1 = _mm512_dpbusd_epi32(a1, taps_at(x + ws), wa), b1 = _mm512_dpbusd_epi32(b1, taps_at(x + ws + 4), wb);
          a2 = _mm512_dpbusd_epi32(a2, taps_at(x + 2 * ws), wa);
          b2 = _mm512_dpbusd_epi32(b2, taps_at(x + 2 * ws + 4), wb);
          a3 = _mm512_dpbusd_epi32(a3, taps_at(x + 3 * ws), wa);
          b3 = _mm512_dpbusd_epi32(b3, taps_at(x + 3 * ws + 4), wb);
        }
        if (j < win.words) {
          const __m512i wa = _mm512_loadu_si512(w);
          a0 = _mm512_dpbusd_epi32(a0, taps_at(x), wa), a1 = _mm512_dpbusd_epi32(a1, taps_at(x + ws), wa);
          a2 = _mm512_dpbusd_epi32(a2, taps_at(x + 2 * ws), wa), a3 = _mm512_dpbusd_epi32(a3, taps_at(x + 3 * ws), wa);
          w += 64;
        }
      }
    }
    const __m512i a[4] = {_mm512_add_epi32(a0, b0), _mm512_add_epi32(a1, b1), _mm512_add_epi32(a2, b2),
                          _mm512_add_epi32(a3, b3)};
    const int32_t lanes = m - ob < 16 ? m - ob : 16;
    const stage16 sa = stage16_at(p, ob, lanes);
    for (int32_t i = 0; i < 4; ++i) {
      if (outs[i] != NULL) output16(&sa, a[i], outs[i] + ob);
    }
  }
}

mote_status mote_conv_vnni_s8(const mote_conv_vnni_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t n = p->taps4, c = g->in_ch;
  const size_t image_bytes = (size_t)g->batches * (size_t)g->in_h * (size_t)g->in_w * (size_t)c;
  if (n % 4 != 0 || n < p->taps || scratch.size < (size_t)(4 * n + 64) + image_bytes) return MOTE_ERROR;
  int8_t *col = scratch.buf;
  /* The input as x + 128 (its sign bits flipped), the instruction's unsigned operand, once: the dot
   * products then broadcast their taps straight from memory. */
  int8_t *flipped = scratch.buf + 4 * n + 64;
  flip_signs(input, image_bytes, flipped);
  input = flipped;
  const int32_t m = g->out_ch;
  /* Four neighbouring windows wholly inside the input are read where they are when their rows are
   * whole words of channels; other pixels queue up, four at a time, for windows gathered into
   * scratch, contiguous. */
  const int direct = c % 4 == 0, small = n <= 64 && g->dilation_w == 1;
  const four_windows gathered = {col, n, 0, 0, 1, 1, n / 4};
  int8_t *outs[4];
  int32_t queued = 0;
  for (int32_t b = 0; b < g->batches; ++b) {
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top, first = (b * g->out_h + oy) * g->out_w;
      const int rows_inside = direct && y0 >= 0 && y0 + (g->filter_h - 1) * g->dilation_h < g->in_h;
      for (int32_t ox = 0; ox < g->out_w;) {
        const int32_t x0 = ox * g->stride_w - g->pad_left;
        int8_t *out = output + (first + ox) * m;
        if (rows_inside && ox + 4 <= g->out_w && x0 >= 0 &&
            x0 + 3 * g->stride_w + (g->filter_w - 1) * g->dilation_w < g->in_w) {
          const four_windows inside = {input + ((b * g->in_h + y0) * g->in_w + x0) * c, g->stride_w * c,
                                       g->dilation_h * g->in_w * c, g->dilation_w * c, g->filter_h, g->filter_w,
                                       c / 4};
          int8_t *const next[4] = {out, out + m, out + 2 * m, out + 3 * m};
          convolve(p, &inside, next);
          ox += 4;
          continue;
        }
        if (small) {
          gather_small(p, input, b, oy, ox, col + queued * n);
        } else {
          gather(p, input, b, oy, ox, col + queued * n);
        }
        outs[queued++] = out;
        if (queued == 4) {
          convolve(p, &gathered, outs);
          queued = 0;
        }
        ++ox;
      }
    }
  }
  if (queued > 0) { /* the last few: the missing windows are computed, not stored */
    for (int32_t i = queued; i < 4; ++i) {
      memset(col + i * n, 0, (size_t)n);
      outs[i] = NULL;
    }
    convolve(p, &gathered, outs);
  }
  return MOTE_OK;
}

#else

mote_status mote_conv_vnni_s8(const mote_conv_vnni_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch) {
  (void)p, (void)input, (void)output, (void)scratch;
  return MOTE_ERROR; /* mote selects this kernel only for x86-64 hosts with AVX-512 VNNI */
}

#endif

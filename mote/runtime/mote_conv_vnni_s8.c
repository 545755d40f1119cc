#include "mote_conv_vnni_s8.h"

#include "mote_libc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

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

/* to[0, n) = value. */
__attribute__((target("avx512f,avx512bw"))) static void fill(int8_t *to, __m512i value, int32_t n) {
  for (int32_t i = 0; i < n; i += 64) {
    const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    _mm512_mask_storeu_epi8(to + i, k, value);
  }
}

/* to[i] = from[i] ^ 0x80, i < n. */
__attribute__((target("avx512f,avx512bw"))) static void copy_flipped(int8_t *to, const int8_t *from, int32_t n) {
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (int32_t i = 0; i < n; i += 64) {
    const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    _mm512_mask_storeu_epi8(to + i, k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, from + i), flip));
  }
}

/* One image of the input, its signs flipped (int8 x as the uint8 x + 128: the instruction's unsigned
 * operand), into a plane of padded_h rows by padded_w pixels of in_ch4 bytes, at (pad_top, pad_left),
 * with the zero point (flipped) all around: every window the convolution reads then lies inside it.
 * The channels past in_ch meet zero weights: whatever they hold adds nothing. */
__attribute__((target("avx512f,avx512bw"))) static void pad_image(const mote_conv_vnni_params *p, const int8_t *image,
                                                                     int8_t *plane) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, c4 = p->in_ch4, row_bytes = p->padded_w * c4;
  const int32_t left = g->pad_left * c4, right = left + g->in_w * c4;
  const __m512i zero_point = _mm512_set1_epi8((char)(-p->input_offset ^ 0x80));
  const int8_t *const end = image + g->in_h * g->in_w * c;
  for (int32_t r = 0; r < p->padded_h; ++r) {
    int8_t *row = plane + r * row_bytes;
    const int32_t y = r - g->pad_top;
    if (y < 0 || y >= g->in_h) {
      fill(row, zero_point, row_bytes);
      continue;
    }
    fill(row, zero_point, left);
    fill(row + right, zero_point, row_bytes - right);
    const int8_t *from = image + y * g->in_w * c;
    int8_t *to = row + left;
    if (c == c4) { /* whole words of channels: one run */
      copy_flipped(to, from, right - left);
      continue;
    }
    int32_t x = 0;
    if (c4 > 4) { /* pixel by pixel */
      for (; x < g->in_w; ++x, from += c, to += c4) copy_flipped(to, from, c);
      continue;
    }
    /* One to three channels: a pixel's word read whole (its last bytes are the next pixel's, for
     * the channels past in_ch), bytewise where that word would run past the image. */
    for (; x < g->in_w && end - from >= 4; ++x, from += c, to += 4) {
      uint32_t word;
      memcpy(&word, from, 4);
      word ^= 0x80808080u;
      memcpy(to, &word, 4);
    }
    for (; x < g->in_w; ++x, from += c, to += 4) {
      for (int32_t ch = 0; ch < c; ++ch) to[ch] = (int8_t)(from[ch] ^ 0x80);
    }
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
  const four_windows win = *at; /* by pointer: passed by value, it was copied in wide moves that waited on
                                   its narrow stores */
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
  const int32_t c4 = p->in_ch4, m = g->out_ch, pw = p->padded_w;
  const size_t plane_bytes = (size_t)p->padded_h * (size_t)pw * (size_t)c4;
  if (c4 % 4 != 0 || c4 < g->in_ch || p->taps4 != g->filter_h * g->filter_w * c4 || scratch.size < plane_bytes) {
    return MOTE_ERROR;
  }
  int8_t *plane = scratch.buf;
  for (int32_t b = 0; b < g->batches; ++b) {
    pad_image(p, input + b * g->in_h * g->in_w * g->in_ch, plane);
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      int8_t *out = output + (b * g->out_h + oy) * g->out_w * m;
      for (int32_t ox = 0; ox < g->out_w; ox += 4, out += 4 * m) {
        /* Four neighbours (the plane is wide enough for the last block's missing ones). */
        const four_windows at = {plane + ((oy * g->stride_h) * pw + ox * g->stride_w) * c4, g->stride_w * c4,
                                 g->dilation_h * pw * c4, g->dilation_w * c4, g->filter_h, g->filter_w, c4 / 4};
        int8_t *const outs[4] = {out, ox + 1 < g->out_w ? out + m : NULL, ox + 2 < g->out_w ? out + 2 * m : NULL,
                                 ox + 3 < g->out_w ? out + 3 * m : NULL};
        convolve(p, &at, outs);
      }
    }
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

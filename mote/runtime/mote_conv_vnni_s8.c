#include "mote_conv_vnni_s8.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* col[0, n) = x + 128 (the sign bit flipped), 64 bytes at a time, the last ones under a mask. */
__attribute__((target("avx512f,avx512bw"))) static void copy_unsigned(uint8_t *col, const int8_t *x, int32_t n) {
  const __m512i sign = _mm512_set1_epi8((char)0x80);
  for (int32_t i = 0; i < n; i += 64) {
    const __mmask64 k = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    _mm512_mask_storeu_epi8(col + i, k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, x + i), sign));
  }
}

/* Copies output pixel `pixel`'s window (HWC tap order) to col[0, taps) as x + 128, padding taps as
 * the zero point + 128, then zeros up to taps4. */
static void gather(const mote_conv_vnni_params *p, const int8_t *input, int32_t pixel, uint8_t *col) {
  const int32_t c = p->in_ch;
  const int32_t per_image = p->out_h * p->out_w;
  const int32_t b = pixel / per_image, oy = pixel % per_image / p->out_w, ox = pixel % p->out_w;
  const int8_t *image = input + b * p->in_h * p->in_w * c;
  const uint8_t pad = (uint8_t)(128 - p->input_offset); /* the zero point + 128 */
  const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
  const int32_t row_bytes = p->filter_w * c;
  uint8_t *at = col;
  for (int32_t fy = 0; fy < p->filter_h; ++fy, at += row_bytes) {
    const int32_t iy = y0 + fy * p->dilation_h;
    if (iy < 0 || iy >= p->in_h) {
      memset(at, pad, (size_t)row_bytes);
      continue;
    }
    const int8_t *row = image + iy * p->in_w * c;
    if (p->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      const int32_t lo = x0 < 0 ? (-x0 < p->filter_w ? -x0 : p->filter_w) : 0;
      const int32_t hi = p->in_w - x0 < p->filter_w ? (p->in_w - x0 > lo ? p->in_w - x0 : lo) : p->filter_w;
      memset(at, pad, (size_t)(lo * c));
      copy_unsigned(at + lo * c, row + (x0 + lo) * c, (hi - lo) * c);
      memset(at + hi * c, pad, (size_t)((p->filter_w - hi) * c));
      continue;
    }
    for (int32_t fx = 0; fx < p->filter_w; ++fx) {
      const int32_t ix = x0 + fx * p->dilation_w;
      if (ix < 0 || ix >= p->in_w) {
        memset(at + fx * c, pad, (size_t)c);
      } else {
        copy_unsigned(at + fx * c, row + ix * c, c);
      }
    }
  }
  memset(col + p->taps, 0, (size_t)(p->taps4 - p->taps));
}

/* Sixteen channels' outputs from their accumulators (the first `lanes` of them are stored), exactly
 * as mote_conv_requantize: TFLite's doubling high multiply as floor((x * m + 2^30) / 2^31) on 64-bit
 * lanes (the saturating case cannot occur for m < 2^31), then its rounding right shift as
 * (v >> r) + (remainder > threshold), all in vector registers. */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void output16(const mote_conv_vnni_params *p,
                                                                            __m512i acc, int32_t c, int32_t lanes,
                                                                            int8_t *out) {
  const __mmask16 valid = (__mmask16)((1u << lanes) - 1u);
  const __m512i multiplier = _mm512_maskz_loadu_epi32(valid, p->multiplier + c);
  const __m512i shift = _mm512_maskz_loadu_epi32(valid, p->shift + c);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i left = _mm512_max_epi32(shift, zero), right = _mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero);
  const __m512i x = _mm512_sllv_epi32(acc, left); /* wraps like TFLite's int32 product */
  const __m512i half = _mm512_set1_epi64(1ll << 30);
  const __m512i even = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, multiplier), half), 31);
  const __m512i odd = _mm512_srai_epi64(
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(multiplier, 32)), half), 31);
  const __m512i v = _mm512_mask_blend_epi32((__mmask16)0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), right), _mm512_set1_epi32(1));
  const __m512i negative = _mm512_srli_epi32(v, 31);
  const __m512i threshold = _mm512_add_epi32(_mm512_srli_epi32(mask, 1), negative);
  const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(v, mask), threshold);
  __m512i q = _mm512_srav_epi32(v, right);
  q = _mm512_mask_add_epi32(q, up, q, _mm512_set1_epi32(1));
  q = _mm512_add_epi32(q, _mm512_set1_epi32(p->output_offset)); /* wraps like TFLite's int32 sum */
  q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(p->act_min)), _mm512_set1_epi32(p->act_max));
  _mm512_mask_cvtepi32_storeu_epi8(out, valid, q);
}

/* Four gathered windows (taps4 bytes apart) by every output channel; count: how many to store. */
/* Four taps of window i (taps4 bytes apart), as one 32-bit word broadcast to every lane. */
__attribute__((target("avx512f"))) static inline __m512i taps_of(const uint8_t *col, int32_t i, int32_t n, int32_t g) {
  int32_t u;
  memcpy(&u, col + i * n + 4 * g, 4);
  return _mm512_set1_epi32(u);
}

/* Four gathered windows (taps4 bytes apart) by every output channel; count: how many to store.
 * Thirty-two channels at a time where there are that many: eight independent accumulators hide the
 * dot-product instruction's latency. */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void four_windows(
    const mote_conv_vnni_params *p, const uint8_t *col, int32_t count, int8_t *out) {
  const int32_t n = p->taps4, m = p->out_ch, groups = n / 4;
  int32_t ob = 0;
  for (; ob < p->out_ch16; ob += 16) {
    __m512i a0 = _mm512_loadu_si512(p->bias + ob), a1 = a0, a2 = a0, a3 = a0;
    const int8_t *w = p->weights + ob * n;
    for (int32_t g = 0; g < groups; ++g, w += 64) {
      const __m512i wa = _mm512_loadu_si512(w);
      a0 = _mm512_dpbusd_epi32(a0, taps_of(col, 0, n, g), wa);
      a1 = _mm512_dpbusd_epi32(a1, taps_of(col, 1, n, g), wa);
      a2 = _mm512_dpbusd_epi32(a2, taps_of(col, 2, n, g), wa);
      a3 = _mm512_dpbusd_epi32(a3, taps_of(col, 3, n, g), wa);
    }
    const __m512i a[4] = {a0, a1, a2, a3};
    const int32_t lanes = m - ob < 16 ? m - ob : 16;
    for (int32_t i = 0; i < count; ++i) output16(p, a[i], ob, lanes, out + i * m + ob);
  }
}

mote_status mote_conv_vnni_s8(const mote_conv_vnni_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch) {
  const int32_t n = p->taps4;
  if (n % 4 != 0 || n < p->taps || scratch.size < (size_t)(4 * n)) return MOTE_ERROR;
  uint8_t *col = (uint8_t *)scratch.buf;
  const int32_t pixels = p->batches * p->out_h * p->out_w;
  for (int32_t px = 0; px < pixels; px += 4) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    for (int32_t i = 0; i < 4; ++i) {
      if (i < count) {
        gather(p, input, px + i, col + i * n);
      } else {
        memset(col + i * n, 0, (size_t)n); /* a missing pixel of the last block: computed, not stored */
      }
    }
    four_windows(p, col, count, output + px * p->out_ch);
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

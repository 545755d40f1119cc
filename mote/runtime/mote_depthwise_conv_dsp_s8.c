#include "mote_depthwise_conv_dsp_s8.h"

#include "mote_libc.h"

/* acc[j] += the three taps of one filter row for four channels: the input pixels at x, x + ch and x + 2 ch
 * (four int8 channels each, word-aligned) by the row's weights w[0 .. 5] (two words per tap, mote_dsp.h's
 * pairs). On Arm in assembly, so that every compiler issues eight instructions per tap: one load, two
 * SXTB16, one LDRD, four SMLABB / SMLATT, with the taps' addresses [x], [x, ch], [x, ch, lsl #1]. */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define MOTE_DW_TAP(ADDRESS, OFFSET)                 \
  "ldr %[t0], " ADDRESS "\n\t"                      \
  "ldrd %[w0], %[w1], [%[w], #" OFFSET "]\n\t"      \
  "sxtb16 %[t1], %[t0]\n\t"                         \
  "sxtb16 %[t0], %[t0], ror #8\n\t"                 \
  "smlabb %[a0], %[t1], %[w0], %[a0]\n\t"           \
  "smlatt %[a2], %[t1], %[w0], %[a2]\n\t"           \
  "smlabb %[a1], %[t0], %[w1], %[a1]\n\t"           \
  "smlatt %[a3], %[t0], %[w1], %[a3]\n\t"

static inline void row_of_taps(const int8_t *x, int32_t ch, const uint32_t *w, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  uint32_t t0, t1, w0, w1;
  __asm__(MOTE_DW_TAP("[%[x]]", "0") MOTE_DW_TAP("[%[x], %[ch]]", "8") MOTE_DW_TAP("[%[x], %[ch], lsl #1]", "16")
          : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [t0] "=&r"(t0), [t1] "=&r"(t1),
            [w0] "=&r"(w0), [w1] "=&r"(w1)
          : [x] "r"(x), [ch] "r"(ch), [w] "r"(w)
          : "memory");
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#else
static inline void row_of_taps(const int8_t *x, int32_t ch, const uint32_t *w, int32_t acc[4]) {
  for (int32_t k = 0; k < 3; ++k, x += ch, w += 2) {
    const uint32_t v = mote_load4(x);
    const uint32_t even = mote_widen_even(v), odd = mote_widen_odd(v);
    acc[0] = mote_smlabb(even, w[0], acc[0]);
    acc[2] = mote_smlatt(even, w[0], acc[2]);
    acc[1] = mote_smlabb(odd, w[1], acc[1]);
    acc[3] = mote_smlatt(odd, w[1], acc[3]);
  }
}
#endif

/* The four outputs of channels c .. c + 3 from their accumulators. */
static inline void store4(const mote_depthwise_conv_dsp_params *p, const int32_t acc[4], const int32_t *st,
                          int8_t *out) {
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  out[0] = (int8_t)mote_dsp_requantize(acc[0], st, offset, lo, hi);
  out[1] = (int8_t)mote_dsp_requantize(acc[1], st + MOTE_DSP_STAGE, offset, lo, hi);
  out[2] = (int8_t)mote_dsp_requantize(acc[2], st + 2 * MOTE_DSP_STAGE, offset, lo, hi);
  out[3] = (int8_t)mote_dsp_requantize(acc[3], st + 3 * MOTE_DSP_STAGE, offset, lo, hi);
}

/* One output pixel whose nine taps lie inside the input: x is tap (0, 0)'s pixel; rows step by in_w pixels. */
static void pixel_inside(const mote_depthwise_conv_dsp_params *p, const int8_t *x, int8_t *out) {
  const int32_t ch = p->in_ch, row = p->in_w * ch;
  const uint32_t *w = p->weights;
  const int32_t *st = p->stage;
  for (int32_t c = 0; c < ch; c += 4, w += 18, st += 4 * MOTE_DSP_STAGE) {
    int32_t acc[4] = {p->folded_bias[c], p->folded_bias[c + 1], p->folded_bias[c + 2], p->folded_bias[c + 3]};
    row_of_taps(x + c, ch, w, acc);
    row_of_taps(x + c + row, ch, w + 6, acc);
    row_of_taps(x + c + 2 * row, ch, w + 12, acc);
    store4(p, acc, st, out + c);
  }
}

/* One output pixel at the input's edge: its nine taps' input pixels (taps[k] for tap (k / 3, k % 3)), all
 * channels. */
static void pixel(const mote_depthwise_conv_dsp_params *p, const int8_t *const taps[9], int8_t *out) {
  const uint32_t *w = p->weights;
  const int32_t *st = p->stage;
  for (int32_t c = 0; c < p->in_ch; c += 4, st += 4 * MOTE_DSP_STAGE) {
    int32_t acc[4] = {p->folded_bias[c], p->folded_bias[c + 1], p->folded_bias[c + 2], p->folded_bias[c + 3]};
    for (int32_t k = 0; k < 9; ++k, w += 2) {
      const uint32_t x = mote_load4(taps[k] + c);
      const uint32_t even = mote_widen_even(x), odd = mote_widen_odd(x); /* (c0, c2), (c1, c3) */
      acc[0] = mote_smlabb(even, w[0], acc[0]);
      acc[2] = mote_smlatt(even, w[0], acc[2]);
      acc[1] = mote_smlabb(odd, w[1], acc[1]);
      acc[3] = mote_smlatt(odd, w[1], acc[3]);
    }
    store4(p, acc, st, out + c);
  }
}

mote_status mote_depthwise_conv_dsp_s8(const mote_depthwise_conv_dsp_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch) {
  const int32_t c = p->in_ch;
  if (scratch.size < (size_t)MOTE_DEPTHWISE_CONV_DSP_SCRATCH(c)) return MOTE_ERROR;
  int8_t *zero_row = scratch.buf;
  memset(zero_row, -p->input_offset, (size_t)c);
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * c;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      for (int32_t ox = 0; ox < p->out_w; ++ox, output += c) {
        const int32_t x0 = ox * p->stride_w - p->pad_left;
        if (y0 >= 0 && y0 + 3 <= p->in_h && x0 >= 0 && x0 + 3 <= p->in_w) {
          pixel_inside(p, image + (y0 * p->in_w + x0) * c, output);
          continue;
        }
        const int8_t *taps[9];
        for (int32_t k = 0; k < 9; ++k) {
          const int32_t iy = y0 + k / 3, ix = x0 + k % 3;
          const int inside = iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w;
          taps[k] = inside ? image + (iy * p->in_w + ix) * c : zero_row;
        }
        pixel(p, taps, output);
      }
    }
  }
  return MOTE_OK;
}

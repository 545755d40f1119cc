#include "mote_depthwise_conv_dsp_s8.h"

#include <string.h>

/* One output pixel: its nine taps' input pixels (taps[k] for tap (k / 3, k % 3)), all channels. */
static void pixel(const mote_depthwise_conv_dsp_params *p, const int8_t *const taps[9], int8_t *out) {
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  const uint32_t *w = p->weights;
  const int32_t *st = p->stage;
  for (int32_t c = 0; c < p->in_ch; c += 4, st += 4 * MOTE_DSP_STAGE) {
    int32_t a0 = p->folded_bias[c], a1 = p->folded_bias[c + 1], a2 = p->folded_bias[c + 2],
            a3 = p->folded_bias[c + 3];
    for (int32_t k = 0; k < 9; ++k, w += 2) {
      const uint32_t x = mote_load4(taps[k] + c);
      const uint32_t even = mote_widen_even(x), odd = mote_widen_odd(x); /* (c0, c2), (c1, c3) */
      a0 = mote_smlabb(even, w[0], a0);
      a2 = mote_smlatt(even, w[0], a2);
      a1 = mote_smlabb(odd, w[1], a1);
      a3 = mote_smlatt(odd, w[1], a3);
    }
    out[c] = (int8_t)mote_dsp_requantize(a0, st, offset, lo, hi);
    out[c + 1] = (int8_t)mote_dsp_requantize(a1, st + MOTE_DSP_STAGE, offset, lo, hi);
    out[c + 2] = (int8_t)mote_dsp_requantize(a2, st + 2 * MOTE_DSP_STAGE, offset, lo, hi);
    out[c + 3] = (int8_t)mote_dsp_requantize(a3, st + 3 * MOTE_DSP_STAGE, offset, lo, hi);
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

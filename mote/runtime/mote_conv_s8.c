#include "mote_conv_s8.h"

#include "mote_fixedpoint.h"

/* One output pixel, every output channel. */
static void conv_pixel(const mote_conv_params *p, const int8_t *image, int32_t y0, int32_t x0, int8_t *out) {
  const int32_t per_group = p->geometry.out_ch / (p->geometry.in_ch / p->filter_in_ch);
  const int32_t taps = p->geometry.filter_h * p->geometry.filter_w * p->filter_in_ch;
  for (int32_t oc = 0; oc < p->geometry.out_ch; ++oc) {
    const int8_t *filter = p->weights + oc * taps;
    const int8_t *group_in = image + (oc / per_group) * p->filter_in_ch;
    /* |acc| <= filter taps * 128 * 255 (+ |bias|): below 2^31 for fewer than 2^16 taps, as in TFLM. */
    int32_t acc = 0;
    for (int32_t fy = 0; fy < p->geometry.filter_h; ++fy) {
      const int32_t iy = y0 + fy * p->geometry.dilation_h;
      if (iy < 0 || iy >= p->geometry.in_h) continue;
      for (int32_t fx = 0; fx < p->geometry.filter_w; ++fx) {
        const int32_t ix = x0 + fx * p->geometry.dilation_w;
        if (ix < 0 || ix >= p->geometry.in_w) continue;
        const int8_t *in = group_in + (iy * p->geometry.in_w + ix) * p->geometry.in_ch;
        const int8_t *w = filter + (fy * p->geometry.filter_w + fx) * p->filter_in_ch;
        for (int32_t ic = 0; ic < p->filter_in_ch; ++ic) {
          acc += (int32_t)w[ic] * ((int32_t)in[ic] + p->input_offset);
        }
      }
    }
    if (p->bias) acc += p->bias[oc];
    acc = mote_requantize(acc, p->multiplier[oc], p->shift[oc]) + p->output_offset;
    out[oc] = (int8_t)mote_clamp(acc, p->act_min, p->act_max);
  }
}

mote_status mote_conv_s8(const mote_conv_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  (void)scratch;
  if (p->filter_in_ch <= 0 || p->geometry.in_ch % p->filter_in_ch != 0) return MOTE_ERROR;
  for (int32_t b = 0; b < p->geometry.batches; ++b) {
    const int8_t *image = input + b * p->geometry.in_h * p->geometry.in_w * p->geometry.in_ch;
    for (int32_t oy = 0; oy < p->geometry.out_h; ++oy) {
      for (int32_t ox = 0; ox < p->geometry.out_w; ++ox) {
        int8_t *out = output + ((b * p->geometry.out_h + oy) * p->geometry.out_w + ox) * p->geometry.out_ch;
        conv_pixel(p, image, oy * p->geometry.stride_h - p->geometry.pad_top, ox * p->geometry.stride_w - p->geometry.pad_left, out);
      }
    }
  }
  return MOTE_OK;
}

#include "mote_conv_offset_s8.h"

#include "mote_fixedpoint.h"

/* One output pixel, every output channel. */
static void conv_pixel(const mote_conv_offset_params *op, const int8_t *image, int32_t y0, int32_t x0,
                       int8_t *out) {
  const mote_conv_params *p = &op->conv;
  const mote_conv_geometry *g = &p->geometry;
  const int32_t per_group = g->out_ch / (g->in_ch / p->filter_in_ch);
  const int32_t taps = g->filter_h * g->filter_w * p->filter_in_ch;
  for (int32_t oc = 0; oc < g->out_ch; ++oc) {
    const int8_t *filter = p->weights + oc * taps;
    const int8_t *group_in = image + (oc / per_group) * p->filter_in_ch;
    /* |acc| <= filter taps * 255 * 255 (+ |bias|): checked below 2^31 at compile time. */
    int32_t acc = 0;
    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
      const int32_t iy = y0 + fy * g->dilation_h;
      if (iy < 0 || iy >= g->in_h) continue;
      for (int32_t fx = 0; fx < g->filter_w; ++fx) {
        const int32_t ix = x0 + fx * g->dilation_w;
        if (ix < 0 || ix >= g->in_w) continue;
        const int8_t *in = group_in + (iy * g->in_w + ix) * g->in_ch;
        const int8_t *w = filter + (fy * g->filter_w + fx) * p->filter_in_ch;
        for (int32_t ic = 0; ic < p->filter_in_ch; ++ic) {
          acc += ((int32_t)w[ic] + op->filter_offset) * ((int32_t)in[ic] + p->input_offset);
        }
      }
    }
    if (p->bias) acc += p->bias[oc];
    acc = mote_add_wrap(mote_requantize(acc, p->multiplier[oc], p->shift[oc]), p->output_offset);
    out[oc] = (int8_t)mote_clamp(acc, p->act_min, p->act_max);
  }
}

mote_status mote_conv_offset_s8(const mote_conv_offset_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->conv.geometry;
  (void)scratch;
  if (p->conv.filter_in_ch <= 0 || g->in_ch % p->conv.filter_in_ch != 0) return MOTE_ERROR;
  for (int32_t b = 0; b < g->batches; ++b) {
    const int8_t *image = input + b * g->in_h * g->in_w * g->in_ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      for (int32_t ox = 0; ox < g->out_w; ++ox) {
        int8_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch;
        conv_pixel(p, image, oy * g->stride_h - g->pad_top, ox * g->stride_w - g->pad_left, out);
      }
    }
  }
  return MOTE_OK;
}

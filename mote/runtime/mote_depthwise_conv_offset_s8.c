#include "mote_depthwise_conv_offset_s8.h"

#include "mote_fixedpoint.h"

/* One output pixel, every output channel. */
static void depthwise_pixel(const mote_depthwise_conv_offset_params *op, const int8_t *image, int32_t y0,
                            int32_t x0, int8_t *out) {
  const mote_depthwise_conv_params *p = &op->conv;
  const int32_t out_ch = p->in_ch * p->depth_multiplier;
  for (int32_t ic = 0; ic < p->in_ch; ++ic) {
    for (int32_t m = 0; m < p->depth_multiplier; ++m) {
      const int32_t oc = ic * p->depth_multiplier + m;
      int32_t acc = 0; /* |acc| <= filter_h * filter_w * 255 * 255 (+ |bias|): checked at compile time */
      for (int32_t fy = 0; fy < p->filter_h; ++fy) {
        const int32_t iy = y0 + fy * p->dilation_h;
        if (iy < 0 || iy >= p->in_h) continue;
        for (int32_t fx = 0; fx < p->filter_w; ++fx) {
          const int32_t ix = x0 + fx * p->dilation_w;
          if (ix < 0 || ix >= p->in_w) continue;
          const int32_t x = image[(iy * p->in_w + ix) * p->in_ch + ic];
          const int32_t w = p->weights[(fy * p->filter_w + fx) * out_ch + oc];
          acc += (w + op->filter_offset) * (x + p->input_offset);
        }
      }
      if (p->bias) acc += p->bias[oc];
      acc = mote_add_wrap(mote_requantize(acc, p->multiplier[oc], p->shift[oc]), p->output_offset);
      out[oc] = (int8_t)mote_clamp(acc, p->act_min, p->act_max);
    }
  }
}

mote_status mote_depthwise_conv_offset_s8(const mote_depthwise_conv_offset_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const mote_depthwise_conv_params *c = &p->conv;
  const int32_t out_ch = c->in_ch * c->depth_multiplier;
  (void)scratch;
  for (int32_t b = 0; b < c->batches; ++b) {
    const int8_t *image = input + b * c->in_h * c->in_w * c->in_ch;
    for (int32_t oy = 0; oy < c->out_h; ++oy) {
      for (int32_t ox = 0; ox < c->out_w; ++ox) {
        int8_t *out = output + ((b * c->out_h + oy) * c->out_w + ox) * out_ch;
        depthwise_pixel(p, image, oy * c->stride_h - c->pad_top, ox * c->stride_w - c->pad_left, out);
      }
    }
  }
  return MOTE_OK;
}

#include "mote_depthwise_conv_s16.h"

#include "mote_output_s16.h"

/* The sum of the in-bounds taps at (y0, x0) for output channel oc; weights [oc][fh][fw]. */
static int64_t window_sum(const mote_depthwise_conv_s16_params *p, const int16_t *image, int32_t y0, int32_t x0,
                          int32_t oc) {
  const int32_t ic = oc / p->depth_multiplier;
  int64_t acc = 0;
  for (int32_t ky = 0; ky < p->filter_h; ++ky) {
    const int32_t y = y0 + ky * p->dilation_h;
    if (y < 0 || y >= p->in_h) continue;
    for (int32_t kx = 0; kx < p->filter_w; ++kx) {
      const int32_t x = x0 + kx * p->dilation_w;
      if (x < 0 || x >= p->in_w) continue;
      acc += (int32_t)p->weights[(oc * p->filter_h + ky) * p->filter_w + kx] * image[(y * p->in_w + x) * p->in_ch + ic];
    }
  }
  return acc;
}

/* Every output channel at (y0, x0) into acc[]: weights [fh][fw][out], the innermost loop along the output
 * channels; no sum leaves int32 (checked at compile time). */
static void window_sums(const mote_depthwise_conv_s16_params *p, const int16_t *image, int32_t y0, int32_t x0,
                        int32_t *acc) {
  const int32_t out_ch = p->in_ch * p->depth_multiplier;
  for (int32_t oc = 0; oc < out_ch; ++oc) acc[oc] = 0;
  for (int32_t ky = 0; ky < p->filter_h; ++ky) {
    const int32_t y = y0 + ky * p->dilation_h;
    if (y < 0 || y >= p->in_h) continue;
    for (int32_t kx = 0; kx < p->filter_w; ++kx) {
      const int32_t x = x0 + kx * p->dilation_w;
      if (x < 0 || x >= p->in_w) continue;
      const int16_t *in = image + (y * p->in_w + x) * p->in_ch;
      const int8_t *w = p->weights + (ky * p->filter_w + kx) * out_ch;
      if (p->depth_multiplier == 1) {
        mote_dot_lanes_s16(acc, w, in, out_ch);
      } else {
        for (int32_t oc = 0; oc < out_ch; ++oc) acc[oc] += in[oc / p->depth_multiplier] * w[oc];
      }
    }
  }
}

mote_status mote_depthwise_conv_s16(const mote_depthwise_conv_s16_params *p, const int16_t *input,
                                    int16_t *output, mote_scratch scratch) {
  const int32_t out_ch = p->in_ch * p->depth_multiplier;
  int32_t *acc = (int32_t *)(void *)scratch.buf;
  if (p->narrow && scratch.size < (size_t)out_ch * sizeof(int32_t)) return MOTE_ERROR;
  for (int32_t n = 0; n < p->batches; ++n) {
    const int16_t *image = input + n * p->in_h * p->in_w * p->in_ch;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
        int16_t *out = output + ((n * p->out_h + oy) * p->out_w + ox) * out_ch;
        if (p->narrow) window_sums(p, image, y0, x0, acc);
        for (int32_t oc = 0; oc < out_ch; ++oc) {
          const int64_t sum = p->narrow ? acc[oc] : window_sum(p, image, y0, x0, oc);
          out[oc] = mote_output_s16(sum + p->bias[oc], p->acc64, p->multiplier[oc], p->shift[oc], 0, p->act_min,
                                    p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_conv_s16.h"

#include "mote_output_s16.h"

/* The sum of the in-bounds taps of the window at (y0, x0) for output channel oc; weights [oc][fh][fw][fic]. */
static int64_t window_sum(const mote_conv_s16_params *p, const int16_t *image, int32_t y0, int32_t x0, int32_t oc,
                          int32_t first) {
  int64_t acc = 0;
  for (int32_t ky = 0; ky < p->filter_h; ++ky) {
    const int32_t y = y0 + ky * p->dilation_h;
    if (y < 0 || y >= p->in_h) continue;
    for (int32_t kx = 0; kx < p->filter_w; ++kx) {
      const int32_t x = x0 + kx * p->dilation_w;
      if (x < 0 || x >= p->in_w) continue;
      const int16_t *in = image + (y * p->in_w + x) * p->in_ch + first;
      const int8_t *w = p->weights + ((oc * p->filter_h + ky) * p->filter_w + kx) * p->filter_in_ch;
      for (int32_t c = 0; c < p->filter_in_ch; ++c) acc += (int32_t)w[c] * in[c];
    }
  }
  return acc;
}

/* Every output channel of the window at (y0, x0) into acc[]: weights [fh][fw][in][out], so the innermost
 * loop runs along the output channels; no sum leaves int32 (checked at compile time). */
static void window_sums(const mote_conv_s16_params *p, const int16_t *image, int32_t y0, int32_t x0, int32_t *acc) {
  for (int32_t oc = 0; oc < p->out_ch; ++oc) acc[oc] = 0;
  for (int32_t ky = 0; ky < p->filter_h; ++ky) {
    const int32_t y = y0 + ky * p->dilation_h;
    if (y < 0 || y >= p->in_h) continue;
    for (int32_t kx = 0; kx < p->filter_w; ++kx) {
      const int32_t x = x0 + kx * p->dilation_w;
      if (x < 0 || x >= p->in_w) continue;
      const int16_t *in = image + (y * p->in_w + x) * p->in_ch;
      const int8_t *w = p->weights + (ky * p->filter_w + kx) * p->in_ch * p->out_ch;
      for (int32_t c = 0; c < p->in_ch; ++c, w += p->out_ch) mote_axpy_s16(acc, w, in[c], p->out_ch);
    }
  }
}

mote_status mote_conv_s16(const mote_conv_s16_params *p, const int16_t *input, int16_t *output,
                          mote_scratch scratch) {
  int32_t *acc = (int32_t *)(void *)scratch.buf;
  if (p->narrow && scratch.size < (size_t)p->out_ch * sizeof(int32_t)) return MOTE_ERROR;
  const int32_t per_group = p->out_ch / (p->in_ch / p->filter_in_ch);
  for (int32_t n = 0; n < p->batches; ++n) {
    const int16_t *image = input + n * p->in_h * p->in_w * p->in_ch;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
        int16_t *out = output + ((n * p->out_h + oy) * p->out_w + ox) * p->out_ch;
        if (p->narrow) window_sums(p, image, y0, x0, acc);
        for (int32_t oc = 0; oc < p->out_ch; ++oc) {
          const int64_t sum = p->narrow ? acc[oc] : window_sum(p, image, y0, x0, oc, (oc / per_group) * p->filter_in_ch);
          out[oc] = mote_output_s16(sum + p->bias[oc], p->acc64, p->multiplier[oc], p->shift[oc], 0, p->act_min,
                                    p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

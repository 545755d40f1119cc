#include "mote_depthwise_conv_f32.h"

#include "mote_float.h"

/* Outputs [oc0, oc0 + n) of one pixel (n <= MOTE_F32_BLOCK), summed in registers over the window's taps
 * at (y0 + fy * dilation_h, x0 + fx * dilation_w) that lie inside the image. */
static void depthwise_block(const mote_depthwise_conv_f32_params *p, const float *image, int32_t y0, int32_t x0,
                            int32_t oc0, int32_t n, float *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t m = p->depth_multiplier;
  float acc[MOTE_F32_BLOCK] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int32_t channel[MOTE_F32_BLOCK]; /* the input channel of each output channel */
  for (int32_t j = 0; j < n; ++j) channel[j] = (oc0 + j) / m;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      const float *in = image + (iy * g->in_w + ix) * g->in_ch;
      const float *w = p->weights + (fy * g->filter_w + fx) * g->out_ch + oc0;
      if (m == 1 && n == MOTE_F32_BLOCK) {
        for (int32_t j = 0; j < MOTE_F32_BLOCK; ++j) acc[j] += in[oc0 + j] * w[j];
      } else {
        for (int32_t j = 0; j < n; ++j) acc[j] += in[channel[j]] * w[j];
      }
    }
  }
  for (int32_t j = 0; j < n; ++j) out[oc0 + j] = mote_clamp_f32(acc[j] + p->bias[oc0 + j], p->act_min, p->act_max);
}

mote_status mote_depthwise_conv_f32(const mote_depthwise_conv_f32_params *p, const float *input, float *output,
                                    mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  (void)scratch;
  if (p->depth_multiplier <= 0 || g->out_ch != g->in_ch * p->depth_multiplier) return MOTE_ERROR;
  for (int32_t b = 0; b < g->batches; ++b) {
    const float *image = input + b * g->in_h * g->in_w * g->in_ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      for (int32_t ox = 0; ox < g->out_w; ++ox) {
        float *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch;
        const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
        for (int32_t oc0 = 0; oc0 < g->out_ch; oc0 += MOTE_F32_BLOCK) {
          const int32_t left = g->out_ch - oc0;
          depthwise_block(p, image, y0, x0, oc0, left < MOTE_F32_BLOCK ? left : MOTE_F32_BLOCK, out);
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_conv_f32.h"

#include "mote_float.h"

/* Outputs [oc0, oc0 + n) of one pixel (n <= MOTE_F32_BLOCK, all in one group), summed in registers
 * over the window's taps at (y0 + fy * dilation_h, x0 + fx * dilation_w) that lie inside the image. */
static void conv_block(const mote_conv_f32_params *p, const float *image, int32_t y0, int32_t x0, int32_t oc0,
                       int32_t n, float *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t fic = p->filter_in_ch, per_group = g->out_ch / (g->in_ch / fic);
  const float *group_in = image + (oc0 / per_group) * fic;
  float acc[MOTE_F32_BLOCK] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      const float *in = group_in + (iy * g->in_w + ix) * g->in_ch;
      const float *w = p->weights + (fy * g->filter_w + fx) * fic * g->out_ch + oc0;
      if (n == MOTE_F32_BLOCK) {
        for (int32_t ic = 0; ic < fic; ++ic, w += g->out_ch) {
          const float xv = in[ic];
          for (int32_t j = 0; j < MOTE_F32_BLOCK; ++j) acc[j] += xv * w[j];
        }
      } else {
        for (int32_t ic = 0; ic < fic; ++ic, w += g->out_ch) {
          const float xv = in[ic];
          for (int32_t j = 0; j < n; ++j) acc[j] += xv * w[j];
        }
      }
    }
  }
  for (int32_t j = 0; j < n; ++j) out[oc0 + j] = mote_clamp_f32(acc[j] + p->bias[oc0 + j], p->act_min, p->act_max);
}

mote_status mote_conv_f32(const mote_conv_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  (void)scratch;
  if (p->filter_in_ch <= 0 || g->in_ch % p->filter_in_ch != 0) return MOTE_ERROR;
  const int32_t per_group = g->out_ch / (g->in_ch / p->filter_in_ch);
  for (int32_t b = 0; b < g->batches; ++b) {
    const float *image = input + b * g->in_h * g->in_w * g->in_ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      for (int32_t ox = 0; ox < g->out_w; ++ox) {
        float *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch;
        const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
        for (int32_t group0 = 0; group0 < g->out_ch; group0 += per_group) {
          for (int32_t oc0 = group0; oc0 < group0 + per_group; oc0 += MOTE_F32_BLOCK) {
            const int32_t left = group0 + per_group - oc0;
            conv_block(p, image, y0, x0, oc0, left < MOTE_F32_BLOCK ? left : MOTE_F32_BLOCK, out);
          }
        }
      }
    }
  }
  return MOTE_OK;
}

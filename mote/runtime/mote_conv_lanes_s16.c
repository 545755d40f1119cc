#include "mote_conv_lanes_s16.h"

#include "mote_stage_s16.h"

/* acc[o] += v * w[o] for o < n, n a multiple of 8. */
static inline void axpy_lanes(int32_t *restrict acc, const int16_t *restrict w, int32_t v, int32_t n) {
  for (int32_t o = 0; o < n; o += 8) {
    for (int32_t k = 0; k < 8; ++k) acc[o + k] += v * w[o + k];
  }
}

/* The first filter column whose tap lies inside the input, and one past the last. */
static void columns(const mote_conv_geometry *g, int32_t x0, int32_t *first, int32_t *end) {
  int32_t lo = 0, hi = g->filter_w;
  while (lo < hi && x0 + lo * g->dilation_w < 0) ++lo;
  while (hi > lo && x0 + (hi - 1) * g->dilation_w >= g->in_w) --hi;
  *first = lo;
  *end = hi;
}

/* The window at (y0, x0)'s sums for every output channel into acc[lanes]. */
static void window_sums(const mote_conv_lanes_s16_params *p, const int16_t *image, int32_t y0, int32_t x0,
                        int32_t *acc) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t lanes = p->lanes, c = g->in_ch;
  for (int32_t o = 0; o < lanes; ++o) acc[o] = 0;
  int32_t first, end;
  columns(g, x0, &first, &end);
  /* dilation 1: the row's inside taps are one run of (end - first) * c values; else a run per column */
  const int32_t step = g->dilation_w == 1 ? end - first : 1;
  for (int32_t ky = 0; ky < g->filter_h; ++ky) {
    const int32_t y = y0 + ky * g->dilation_h;
    if (y < 0 || y >= g->in_h) continue;
    for (int32_t kx = first; kx < end; kx += step) {
      const int16_t *in = image + (y * g->in_w + x0 + kx * g->dilation_w) * c;
      const int16_t *w = p->weights + (ky * g->filter_w + kx) * c * lanes;
      for (int32_t j = 0; j < step * c; ++j, w += lanes) axpy_lanes(acc, w, in[j], lanes);
    }
  }
}

mote_status mote_conv_lanes_s16(const mote_conv_lanes_s16_params *p, const int16_t *input, int16_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  if (scratch.size < (size_t)p->lanes * sizeof(int32_t)) return MOTE_ERROR;
  int32_t *acc = (int32_t *)(void *)scratch.buf;
  for (int32_t b = 0; b < g->batches; ++b) {
    const int16_t *image = input + b * g->in_h * g->in_w * g->in_ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      for (int32_t ox = 0; ox < g->out_w; ++ox) {
        window_sums(p, image, oy * g->stride_h - g->pad_top, ox * g->stride_w - g->pad_left, acc);
        int16_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch;
        for (int32_t oc = 0; oc < g->out_ch; ++oc) {
          out[oc] = mote_stage_s16(acc[oc], p->stage + oc * MOTE_STAGE_S16_ROW, 0, p->act_min, p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_conv_armv6m_s8.h"

#include "mote_libc.h"

/* The window of the output pixel whose first tap is (y0, x0) in `image`, as int8 taps in win[0, taps): HWC
 * order, the input zero point outside the input. A 1x1 window inside the input is the input row itself. */
static const int8_t *gather(const mote_conv_armv6m_params *p, const int8_t *image, int32_t y0, int32_t x0,
                            int8_t *win) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch;
  if (g->filter_h == 1 && g->filter_w == 1 && y0 >= 0 && y0 < g->in_h && x0 >= 0 && x0 < g->in_w) {
    return image + (y0 * g->in_w + x0) * c;
  }
  const int8_t zero_point = (int8_t)-p->input_offset;
  int8_t *col = win;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx, col += c) {
      const int32_t ix = x0 + fx * g->dilation_w;
      const int8_t *from = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w ? image + (iy * g->in_w + ix) * c : NULL;
      for (int32_t k = 0; k < c; ++k) col[k] = from ? from[k] : zero_point;
    }
  }
  return win;
}

/* One output pixel: its window's pair words x[pairs] by every block of four channels. */
static void pixel(const mote_conv_armv6m_params *p, const uint32_t *x, int8_t *output) {
  const int32_t pairs = p->pairs, m = p->geometry.out_ch;
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  const uint32_t *w = p->weights;
  const int32_t *stage = p->stage, *single = p->single;
  for (int32_t oc = 0; oc < m; oc += 4, w += 4 * pairs) {
    int32_t acc[4];
    for (int32_t j = 0; j < 4; ++j) acc[j] = oc + j < m ? p->bias[oc + j] : 0;
    mote_armv6m_dot_1x4(x, w, pairs, acc);
    const int32_t n = m - oc < 4 ? m - oc : 4;
    for (int32_t j = 0; j < n; ++j, stage += MOTE_DSP_STAGE, single += MOTE_ARMV6M_SINGLE) {
      output[oc + j] = mote_armv6m_output(acc[j], single, stage, offset, lo, hi);
    }
  }
}

mote_status mote_conv_armv6m_s8(const mote_conv_armv6m_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t pairs = p->pairs, m = g->out_ch;
  if (scratch.size < (size_t)MOTE_CONV_ARMV6M_SCRATCH(pairs)) return MOTE_ERROR;
  uint32_t *x = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 3u) & ~(uintptr_t)3u); /* [pairs] */
  int8_t *win = (int8_t *)(x + pairs);
  const int32_t image_size = g->in_h * g->in_w * g->in_ch;
  for (int32_t b = 0; b < g->batches; ++b, input += image_size) {
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      for (int32_t ox = 0, x0 = -g->pad_left; ox < g->out_w; ++ox, x0 += g->stride_w, output += m) {
        mote_armv6m_widen(gather(p, input, y0, x0, win), p->taps, x, pairs);
        pixel(p, x, output);
      }
    }
  }
  return MOTE_OK;
}

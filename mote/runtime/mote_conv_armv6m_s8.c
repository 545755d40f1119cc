#include "mote_conv_armv6m_s8.h"

#include "mote_libc.h"

/* The window of the output pixel whose first tap is (y0, x0) in `image` as pair words at x: segment by segment
 * (a filter row of filter_w * in_ch taps, contiguous in the input, or with dilation across one tap's in_ch
 * channels), each seg_pairs words. A segment inside the input is widened from it; any other is gathered into
 * `win` first, with the input zero point for its taps outside the input. */
static void widen_window(const mote_conv_armv6m_params *p, const int8_t *image, int32_t y0, int32_t x0, int8_t *win,
                         uint32_t *x) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, seg = p->seg_taps, seg_pairs = p->seg_pairs, row = g->in_w * c;
  const int32_t per_row = seg == c ? g->filter_w : 1; /* segments per filter row */
  const int32_t taps_per = seg == c ? 1 : g->filter_w;   /* filter taps per segment */
  const int8_t zero_point = (int8_t)-p->input_offset;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    const int32_t row_inside = iy >= 0 && iy < g->in_h;
    for (int32_t s = 0; s < per_row; ++s, x += seg_pairs) {
      const int32_t first = x0 + s * g->dilation_w, last = first + (taps_per - 1) * g->dilation_w;
      if (row_inside && first >= 0 && last < g->in_w) {
        mote_armv6m_widen(image + iy * row + first * c, seg, x, seg_pairs);
        continue;
      }
      int8_t *col = win;
      for (int32_t f = 0; f < taps_per; ++f, col += c) {
        const int32_t ix = first + f * g->dilation_w;
        const int8_t *from = row_inside && ix >= 0 && ix < g->in_w ? image + iy * row + ix * c : NULL;
        for (int32_t k = 0; k < c; ++k) col[k] = from ? from[k] : zero_point;
      }
      mote_armv6m_widen(win, seg, x, seg_pairs);
    }
  }
}

/* One output pixel: its window's pair words x[pairs] by every block of four channels (the bias padded to
 * whole blocks). */
static void pixel(const mote_conv_armv6m_params *p, const uint32_t *x, int8_t *output) {
  const int32_t pairs = p->pairs, m = p->geometry.out_ch;
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  const uint32_t *w = p->weights;
  const int32_t *bias = p->bias, *stage = p->stage, *single = p->single;
  int32_t oc = 0;
  for (; oc + 4 <= m; oc += 4, w += 4 * pairs, bias += 4, output += 4) {
    int32_t acc[4] = {bias[0], bias[1], bias[2], bias[3]};
    mote_armv6m_dot_1x4(x, w, pairs, acc);
    for (int32_t j = 0; j < 4; ++j, stage += MOTE_DSP_STAGE, single += MOTE_ARMV6M_SINGLE) {
      output[j] = mote_armv6m_output(acc[j], single, stage, offset, lo, hi);
    }
  }
  if (oc < m) {
    int32_t acc[4] = {bias[0], bias[1], bias[2], bias[3]};
    mote_armv6m_dot_1x4(x, w, pairs, acc);
    for (int32_t j = 0; j < m - oc; ++j, stage += MOTE_DSP_STAGE, single += MOTE_ARMV6M_SINGLE) {
      output[j] = mote_armv6m_output(acc[j], single, stage, offset, lo, hi);
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
  for (int32_t k = 0; k < pairs; ++k) x[k] = 0; /* the pairs past the last segment stay zero */
  const int32_t image_size = g->in_h * g->in_w * g->in_ch, one = g->filter_h == 1 && g->filter_w == 1;
  for (int32_t b = 0; b < g->batches; ++b, input += image_size) {
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      for (int32_t ox = 0, x0 = -g->pad_left; ox < g->out_w; ++ox, x0 += g->stride_w, output += m) {
        if (one && y0 >= 0 && y0 < g->in_h && x0 >= 0 && x0 < g->in_w) { /* a 1x1 window: the input row */
          mote_armv6m_widen(input + (y0 * g->in_w + x0) * g->in_ch, p->seg_taps, x, p->seg_pairs);
        } else {
          widen_window(p, input, y0, x0, win, x);
        }
        pixel(p, x, output);
      }
    }
  }
  return MOTE_OK;
}

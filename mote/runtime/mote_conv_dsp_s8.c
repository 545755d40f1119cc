#include "mote_conv_dsp_s8.h"

#include "mote_libc.h"


/* Output pixel `pixel`'s window as int8 taps in win[0, groups * 4): HWC order, the input zero point
 * outside the input, zeros after the last tap. A 1x1 window at stride 1 is the input row itself. */
static const int8_t *gather(const mote_conv_dsp_params *p, const int8_t *input, int32_t pixel, int8_t *win) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t b = pixel / per_image, oy = pixel % per_image / g->out_w, ox = pixel % g->out_w;
  const int8_t *image = input + b * g->in_h * g->in_w * c;
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
  if (g->filter_h == 1 && g->filter_w == 1 && (c & 3) == 0 && y0 >= 0 && y0 < g->in_h && x0 >= 0 && x0 < g->in_w) {
    return image + (y0 * g->in_w + x0) * c;
  }
  const int zero_point = -p->input_offset;
  int8_t *col = win;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx, col += c) {
      const int32_t ix = x0 + fx * g->dilation_w;
      const int inside = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
      if (c < 8) { /* a few channels: copied inline, not by a call */
        const int8_t *from = inside ? image + (iy * g->in_w + ix) * c : NULL;
        for (int32_t k = 0; k < c; ++k) col[k] = from ? from[k] : (int8_t)zero_point;
      } else if (inside) {
        memcpy(col, image + (iy * g->in_w + ix) * c, (size_t)c);
      } else {
        memset(col, zero_point, (size_t)c);
      }
    }
  }
  memset(col, 0, (size_t)(p->groups * 4 - p->taps));
  return win;
}

/* The layer's pixels, compiled once per value of `full` (mote_dsp_output). */
MOTE_DSP_SPECIALIZED void conv_pixels(const mote_conv_dsp_params *p, const int8_t *input, int8_t *output,
                                      uint32_t *x, int8_t *win, int full) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t groups = p->groups, m = g->out_ch;
  const int32_t offset = p->output_offset, lo = p->act_min, hi = p->act_max;
  const int32_t pixels = g->batches * g->out_h * g->out_w;
  for (int32_t px = 0; px < pixels; px += 2) {
    const int32_t two = px + 1 < pixels; /* an odd last pixel is widened twice and stored once */
    mote_dsp_widen(gather(p, input, px, win), groups, x, 4);
    mote_dsp_widen(gather(p, input, px + two, win), groups, x + 2, 4);
    int8_t *out0 = output + px * m, *out1 = output + (px + two) * m;
    const uint32_t *w = p->weights;
    for (int32_t oc = 0; oc < m; oc += 2, w += 4 * groups) {
      const int32_t oc1 = oc + 1 < m ? oc + 1 : oc; /* an odd last channel's pair is zero weights */
      int32_t acc[4] = {p->bias[oc], p->bias[oc1], p->bias[oc], p->bias[oc1]};
      mote_dsp_dot_2x2(x, w, groups, acc);
      const int32_t *st = p->stage + MOTE_DSP_STAGE * oc;
      out1[oc] = mote_dsp_output(acc[2], st, offset, lo, hi, full);
      out0[oc] = mote_dsp_output(acc[0], st, offset, lo, hi, full);
      if (oc1 != oc) {
        out1[oc1] = mote_dsp_output(acc[3], st + MOTE_DSP_STAGE, offset, lo, hi, full);
        out0[oc1] = mote_dsp_output(acc[1], st + MOTE_DSP_STAGE, offset, lo, hi, full);
      }
    }
  }
}

mote_status mote_conv_dsp_s8(const mote_conv_dsp_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  const int32_t groups = p->groups;
  if (scratch.size < (size_t)MOTE_CONV_DSP_SCRATCH(groups)) return MOTE_ERROR;
  uint32_t *x = (uint32_t *)(void *)(((uintptr_t)scratch.buf + 3u) & ~(uintptr_t)3u); /* [groups][2][2] */
  int8_t *win = (int8_t *)(x + 4 * groups);
  if (p->act_min == -128 && p->act_max == 127) {
    conv_pixels(p, input, output, x, win, 1);
  } else {
    conv_pixels(p, input, output, x, win, 0);
  }
  return MOTE_OK;
}

#include "mote_conv_im2col_s8.h"

#include "mote_libc.h"

#include "mote_conv_common.h"

/* Copies output pixel `pixel`'s window (in HWC tap order) to col[0, taps). */
static void gather(const mote_conv_im2col_params *p, const int8_t *input, int32_t pixel, int8_t *col) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch;
  const int32_t per_image = g->out_h * g->out_w;
  const int32_t b = pixel / per_image, oy = pixel % per_image / g->out_w, ox = pixel % g->out_w;
  const int8_t *image = input + b * g->in_h * g->in_w * c;
  const int zero_point = -p->input_offset; /* in [-128, 127]: reads as 0 after the offset */
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
  const int32_t row_bytes = g->filter_w * c;
  for (int32_t fy = 0; fy < g->filter_h; ++fy, col += row_bytes) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      memset(col, zero_point, (size_t)row_bytes);
      continue;
    }
    const int8_t *row = image + iy * g->in_w * c;
    if (g->dilation_w == 1) { /* the in-bounds taps of a filter row are contiguous */
      const int32_t lo = x0 < 0 ? -x0 : 0;
      const int32_t hi = g->in_w - x0 < g->filter_w ? g->in_w - x0 : g->filter_w;
      if (hi <= lo) {
        memset(col, zero_point, (size_t)row_bytes);
        continue;
      }
      if (lo > 0) memset(col, zero_point, (size_t)(lo * c));
      memcpy(col + lo * c, row + (x0 + lo) * c, (size_t)((hi - lo) * c));
      if (hi < g->filter_w) memset(col + hi * c, zero_point, (size_t)((g->filter_w - hi) * c));
      continue;
    }
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) {
        memset(col + fx * c, zero_point, (size_t)c);
      } else {
        memcpy(col + fx * c, row + ix * c, (size_t)c);
      }
    }
  }
}

/* The four gathered windows (x0..x3, n = padded_taps bytes each; n16 == n, see mote_conv_common.h)
 * by every output channel; count: how many of them to store. Each |acc| <= |bias| + taps * 2^14
 * < 2^31 (checked at compile time); the zero tails add nothing. */
static void four_windows(const mote_conv_im2col_params *p, const mote_conv_output_stage *s, const int8_t *x0,
                         int32_t n16, int32_t count, int8_t *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t n = p->padded_taps, m = g->out_ch;
  const int8_t *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
  int32_t oc = 0;
  for (; oc + 16 <= m; oc += 16) {
    int32_t acc[4][16];
    for (int32_t q = 0; q < 16; q += 2) {
      const int8_t *w0 = p->weights + (oc + q) * n;
      int32_t a[8];
      a[0] = a[2] = a[4] = a[6] = p->bias[oc + q];
      a[1] = a[3] = a[5] = a[7] = p->bias[oc + q + 1];
      mote_dot_4x2(x0, x1, x2, x3, w0, w0 + n, n, n16, a);
      for (int32_t i = 0; i < 4; ++i) acc[i][q] = a[2 * i], acc[i][q + 1] = a[2 * i + 1];
    }
    for (int32_t i = 0; i < count; ++i) mote_conv_output16(s, acc[i], oc, out + i * m + oc);
  }
  for (; oc < m; oc += 2) { /* the last out_ch % 16 channels; an odd last one is computed twice */
    const int32_t oc1 = oc + 1 < m ? oc + 1 : oc;
    int32_t a[8];
    a[0] = a[2] = a[4] = a[6] = p->bias[oc];
    a[1] = a[3] = a[5] = a[7] = p->bias[oc1];
    mote_dot_4x2(x0, x1, x2, x3, p->weights + oc * n, p->weights + oc1 * n, n, n16, a);
    for (int32_t i = 0; i < count; ++i) {
      out[i * m + oc] = mote_conv_output(s, a[2 * i], oc);
      out[i * m + oc1] = mote_conv_output(s, a[2 * i + 1], oc1);
    }
  }
}

mote_status mote_conv_im2col_s8(const mote_conv_im2col_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  (void)scratch;
  const int32_t n = p->padded_taps;
  if (n <= 0 || n > MOTE_CONV_IM2COL_MAX_TAPS || n % 16 != 0 || n < p->taps) return MOTE_ERROR;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t n16 = n & ~15; /* == n: the dot products need no scalar tail */
  int8_t col[4 * MOTE_CONV_IM2COL_MAX_TAPS];
  memset(col, 0, sizeof col); /* the tails past `taps` meet zero weights; keep them defined */
  const int32_t pixels = g->batches * g->out_h * g->out_w;
  for (int32_t px = 0; px < pixels; px += 4) {
    const int32_t count = pixels - px < 4 ? pixels - px : 4;
    /* A last block of fewer than four pixels repeats its last one; the copies are not stored. */
    for (int32_t i = 0; i < 4; ++i) gather(p, input, px + (i < count ? i : count - 1), col + i * n);
    four_windows(p, &s, col, n16, count, output + px * g->out_ch);
  }
  return MOTE_OK;
}

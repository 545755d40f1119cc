#include "mote_conv_rows_s8.h"

#include "mote_conv_common.h"

/* run: the contiguous bytes under one filter row (one tap if dilation_w > 1). run16 = run & ~15 and
 * tap16 = in_ch & ~15 are computed once per call, outside every loop, and passed down as scalars
 * (see mote_conv_common.h). [fy_lo, fy_hi): the filter rows inside the input for the output row. */

/* acc[2i], acc[2i + 1] += pixel i's window (filter rows fy_lo..fy_hi - 1) times filters w0, w1 (OHWI
 * rows), for four pixels `step` bytes apart; x: pixel 0's tap (fy_lo, 0). */
static inline void window_4x2(const mote_conv_rows_params *p, int32_t run, int32_t run16, const int8_t *x,
                              int32_t step, int32_t fy_lo, int32_t fy_hi, const int8_t *w0, const int8_t *w1,
                              int32_t acc[8]) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t row = g->dilation_h * g->in_w * g->in_ch; /* from one filter row to the next */
  const int32_t col = g->dilation_w * g->in_ch;           /* from one tap to the next in a filter row */
  const int32_t runs = g->dilation_w == 1 ? 1 : g->filter_w;
  for (int32_t fy = fy_lo; fy < fy_hi; ++fy, x += row) {
    for (int32_t r = 0; r < runs; ++r) {
      const int8_t *x0 = x + r * col;
      const int32_t k = (fy * runs + r) * run;
      mote_dot_4x2(x0, x0 + step, x0 + 2 * step, x0 + 3 * step, w0 + k, w1 + k, run, run16, acc);
    }
  }
}

/* The bias of channel oc for windows whose filter rows [fy_lo, fy_hi) are inside the input. */
static inline int32_t rows_bias(const mote_conv_rows_params *p, int32_t oc, int32_t fy_lo, int32_t fy_hi) {
  const mote_conv_geometry *g = &p->geometry;
  int32_t bias = p->folded_bias[oc];
  for (int32_t fy = 0; fy < fy_lo; ++fy) bias -= p->row_sums[fy * g->out_ch + oc];
  for (int32_t fy = fy_hi; fy < g->filter_h; ++fy) bias -= p->row_sums[fy * g->out_ch + oc];
  return bias;
}

/* Four pixels whose window columns are inside the input, by every output channel; x: pixel 0's tap
 * (fy_lo, 0). Each |acc| <= |bias| + taps * 2^15 < 2^31 (checked at compile time): the bias plus
 * input_offset * w and x * w for every tap inside. */
static void four_pixels(const mote_conv_rows_params *p, const mote_conv_output_stage *s, int32_t run, int32_t run16,
                        const int8_t *x, int32_t fy_lo, int32_t fy_hi, int8_t *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t m = g->out_ch, taps = g->filter_h * g->filter_w * g->in_ch;
  const int32_t step = g->stride_w * g->in_ch;
  int32_t oc = 0;
  for (; oc + 16 <= m; oc += 16) {
    int32_t acc[4][16];
    for (int32_t q = 0; q < 16; q += 2) {
      const int8_t *w0 = p->weights + (oc + q) * taps;
      int32_t a[8];
      a[0] = a[2] = a[4] = a[6] = rows_bias(p, oc + q, fy_lo, fy_hi);
      a[1] = a[3] = a[5] = a[7] = rows_bias(p, oc + q + 1, fy_lo, fy_hi);
      window_4x2(p, run, run16, x, step, fy_lo, fy_hi, w0, w0 + taps, a);
      for (int32_t i = 0; i < 4; ++i) acc[i][q] = a[2 * i], acc[i][q + 1] = a[2 * i + 1];
    }
    for (int32_t i = 0; i < 4; ++i) mote_conv_output16(s, acc[i], oc, out + i * m + oc);
  }
  for (; oc < m; oc += 2) { /* the last out_ch % 16 channels; an odd last one is computed twice */
    const int32_t oc1 = oc + 1 < m ? oc + 1 : oc;
    int32_t a[8];
    a[0] = a[2] = a[4] = a[6] = rows_bias(p, oc, fy_lo, fy_hi);
    a[1] = a[3] = a[5] = a[7] = rows_bias(p, oc1, fy_lo, fy_hi);
    window_4x2(p, run, run16, x, step, fy_lo, fy_hi, p->weights + oc * taps, p->weights + oc1 * taps, a);
    for (int32_t i = 0; i < 4; ++i) {
      out[i * m + oc] = mote_conv_output(s, a[2 * i], oc);
      out[i * m + oc1] = mote_conv_output(s, a[2 * i + 1], oc1);
    }
  }
}

/* Two pixels whose window columns are inside the input (the rest of a row after its blocks of four),
 * by every output channel, four channels at a time; bounded as four_pixels. */
static void two_pixels(const mote_conv_rows_params *p, const mote_conv_output_stage *s, int32_t run, int32_t run16,
                       const int8_t *x, int32_t fy_lo, int32_t fy_hi, int8_t *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t m = g->out_ch, taps = g->filter_h * g->filter_w * g->in_ch;
  const int32_t step = g->stride_w * g->in_ch;
  const int32_t row = g->dilation_h * g->in_w * g->in_ch, col = g->dilation_w * g->in_ch;
  const int32_t runs = g->dilation_w == 1 ? 1 : g->filter_w;
  for (int32_t oc = 0; oc < m; oc += 4) {
    int32_t q[4];
    for (int32_t j = 0; j < 4; ++j) q[j] = oc + j < m ? oc + j : oc; /* the last quad may repeat oc */
    int32_t a[8];
    for (int32_t j = 0; j < 4; ++j) a[j] = a[4 + j] = rows_bias(p, q[j], fy_lo, fy_hi);
    const int8_t *xr = x;
    for (int32_t fy = fy_lo; fy < fy_hi; ++fy, xr += row) {
      for (int32_t r = 0; r < runs; ++r) {
        const int8_t *x0 = xr + r * col, *w = p->weights + (fy * runs + r) * run;
        mote_dot_2x4(x0, x0 + step, w + q[0] * taps, w + q[1] * taps, w + q[2] * taps, w + q[3] * taps, run,
                     run16, a);
      }
    }
    for (int32_t j = 0; j < 4 && oc + j < m; ++j) {
      out[oc + j] = mote_conv_output(s, a[j], oc + j);
      out[m + oc + j] = mote_conv_output(s, a[4 + j], oc + j);
    }
  }
}

/* acc[j] += the in-bounds taps of the window at (y0, x0) times filter q[j], input offset applied. */
static inline void window_offset_1x4(const mote_conv_rows_params *p, int32_t tap16, const int8_t *image, int32_t y0,
                                     int32_t x0, const int32_t q[4], int32_t acc[4]) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, taps = g->filter_h * g->filter_w * c;
  const int16_t offset = (int16_t)p->input_offset;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) continue;
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      const int8_t *x = image + (iy * g->in_w + ix) * c;
      const int8_t *w = p->weights + (fy * g->filter_w + fx) * c;
      mote_dot_offset_1x4(x, offset, w + q[0] * taps, w + q[1] * taps, w + q[2] * taps, w + q[3] * taps, c, tap16,
                          acc);
    }
  }
}

/* One pixel over its in-bounds taps, from bias with the input offset applied to each term: each
 * |acc| <= |bias| + taps * 255 * 128 < 2^31 (checked at compile time). */
static void one_pixel(const mote_conv_rows_params *p, const mote_conv_output_stage *s, int32_t tap16,
                      const int8_t *image, int32_t y0, int32_t x0, int8_t *out) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t m = g->out_ch;
  int32_t oc = 0;
  for (; oc + 16 <= m; oc += 16) {
    int32_t acc[16];
    for (int32_t j = 0; j < 16; j += 4) {
      const int32_t q[4] = {oc + j, oc + j + 1, oc + j + 2, oc + j + 3};
      int32_t a[4] = {p->bias[q[0]], p->bias[q[1]], p->bias[q[2]], p->bias[q[3]]};
      window_offset_1x4(p, tap16, image, y0, x0, q, a);
      acc[j] = a[0], acc[j + 1] = a[1], acc[j + 2] = a[2], acc[j + 3] = a[3];
    }
    mote_conv_output16(s, acc, oc, out + oc);
  }
  for (; oc < m; oc += 4) { /* the last out_ch % 16 channels; the last quad may repeat a channel */
    int32_t q[4];
    for (int32_t j = 0; j < 4; ++j) q[j] = oc + j < m ? oc + j : oc;
    int32_t a[4] = {p->bias[q[0]], p->bias[q[1]], p->bias[q[2]], p->bias[q[3]]};
    window_offset_1x4(p, tap16, image, y0, x0, q, a);
    for (int32_t j = 0; j < 4 && oc + j < m; ++j) out[oc + j] = mote_conv_output(s, a[j], oc + j);
  }
}

mote_status mote_conv_rows_s8(const mote_conv_rows_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  (void)scratch;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t run = g->dilation_w == 1 ? g->filter_w * g->in_ch : g->in_ch;
  const int32_t run16 = run & ~15, tap16 = g->in_ch & ~15;
  const int32_t c = g->in_ch, m = g->out_ch, dh = g->dilation_h;
  const int32_t x_lo = p->interior_x0, x_hi = p->interior_x1;
  for (int32_t n = 0; n < g->batches; ++n) {
    const int8_t *image = input + n * g->in_h * g->in_w * c;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      /* The filter rows inside the input: y0 + fy * dh in [0, in_h). */
      const int32_t fy_lo = y0 < 0 ? (-y0 + dh - 1) / dh : 0;
      int32_t fy_hi = y0 >= g->in_h ? 0 : (g->in_h - y0 + dh - 1) / dh;
      fy_hi = fy_hi < g->filter_h ? fy_hi : g->filter_h;
      fy_hi = fy_hi > fy_lo ? fy_hi : fy_lo;
      int8_t *out_row = output + (n * g->out_h + oy) * g->out_w * m;
      int32_t ox = 0;
      for (; ox < x_lo; ++ox) one_pixel(p, &s, tap16, image, y0, ox * g->stride_w - g->pad_left, out_row + ox * m);
      for (; ox + 2 <= x_hi; ox += ox + 4 <= x_hi ? 4 : 2) {
        const int32_t ix = ox * g->stride_w - g->pad_left;
        /* With no filter row inside the input, only the biases count and x is not read. */
        const int8_t *x = fy_hi > fy_lo ? image + ((y0 + fy_lo * dh) * g->in_w + ix) * c : image;
        if (ox + 4 <= x_hi) {
          four_pixels(p, &s, run, run16, x, fy_lo, fy_hi, out_row + ox * m);
        } else {
          two_pixels(p, &s, run, run16, x, fy_lo, fy_hi, out_row + ox * m);
        }
      }
      for (; ox < g->out_w; ++ox) one_pixel(p, &s, tap16, image, y0, ox * g->stride_w - g->pad_left, out_row + ox * m);
    }
  }
  return MOTE_OK;
}

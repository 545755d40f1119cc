/* The register-blocked depthwise convolution's helpers, written once for each element type: the file that
 * includes this header defines MOTE_BLOCKED_X (activations), MOTE_BLOCKED_W (weights), MOTE_BLOCKED_ACC (sums)
 * and MOTE_BLOCKED_PARAMS (its params struct, with `geometry` and `weights`) first, then keeps only its own
 * output stage (mote_depthwise_conv_blocked_s16.c, mote_depthwise_conv_blocked_f32.c). */
#ifndef MOTE_DEPTHWISE_CONV_BLOCKED_BODY_H
#define MOTE_DEPTHWISE_CONV_BLOCKED_BODY_H

#include "mote_types.h"

/* Kept out of line where the compiler allows, so that its sixteen accumulators have the core's registers. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* A block's taps: pixel 0's first input and its steps to the next pixel, filter column and filter row (in
 * values); the block's first weight and its steps to the next filter column and row; the filter rows and
 * columns it sums. */
typedef struct {
  const MOTE_BLOCKED_X *in;
  int32_t pixel_step, col_step, row_step;
  const MOTE_BLOCKED_W *w;
  int32_t w_col_step, w_row_step, rows, cols;
} block_taps;

/* acc[4i + j] = pixel i's sum for channel j, filter row by filter row. */
static OUT_OF_LINE void taps_4x4(const block_taps *t, MOTE_BLOCKED_ACC acc[16]) {
  MOTE_BLOCKED_ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  MOTE_BLOCKED_ACC a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
  const MOTE_BLOCKED_X *in_row = t->in;
  const MOTE_BLOCKED_W *w_row = t->w;
  const int32_t step = t->pixel_step;
  for (int32_t r = 0; r < t->rows; ++r, in_row += t->row_step, w_row += t->w_row_step) {
    const MOTE_BLOCKED_X *x0 = in_row;
    const MOTE_BLOCKED_W *w = w_row;
    for (int32_t f = 0; f < t->cols; ++f, x0 += t->col_step, w += t->w_col_step) {
      const MOTE_BLOCKED_X *x1 = x0 + step, *x2 = x1 + step, *x3 = x2 + step;
      MOTE_BLOCKED_ACC v = w[0];
      a0 += x0[0] * v, a4 += x1[0] * v, a8 += x2[0] * v, a12 += x3[0] * v;
      v = w[1];
      a1 += x0[1] * v, a5 += x1[1] * v, a9 += x2[1] * v, a13 += x3[1] * v;
      v = w[2];
      a2 += x0[2] * v, a6 += x1[2] * v, a10 += x2[2] * v, a14 += x3[2] * v;
      v = w[3];
      a3 += x0[3] * v, a7 += x1[3] * v, a11 += x2[3] * v, a15 += x3[3] * v;
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

/* acc[j] = one pixel's sum for channel j, filter row by filter row (the pixel steps unused). */
static void taps_1x4(const block_taps *t, MOTE_BLOCKED_ACC acc[4]) {
  MOTE_BLOCKED_ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  const MOTE_BLOCKED_X *in_row = t->in;
  const MOTE_BLOCKED_W *w_row = t->w;
  for (int32_t r = 0; r < t->rows; ++r, in_row += t->row_step, w_row += t->w_row_step) {
    const MOTE_BLOCKED_X *x = in_row;
    const MOTE_BLOCKED_W *w = w_row;
    for (int32_t f = 0; f < t->cols; ++f, x += t->col_step, w += t->w_col_step) {
      a0 += x[0] * w[0], a1 += x[1] * w[1], a2 += x[2] * w[2], a3 += x[3] * w[3];
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* One output's sum: channel c of the window at (y0, x0), filter rows [fy0, fy1) inside the input. */
static MOTE_BLOCKED_ACC one_sum(const MOTE_BLOCKED_PARAMS *p, const MOTE_BLOCKED_X *image, int32_t y0,
                       int32_t x0, int32_t fy0, int32_t fy1, int32_t c) {
  const mote_conv_geometry *g = &p->geometry;
  MOTE_BLOCKED_ACC sum = 0;
  for (int32_t fy = fy0; fy < fy1; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (ix < 0 || ix >= g->in_w) continue;
      sum += image[(iy * g->in_w + ix) * g->in_ch + c] * p->weights[(fy * g->filter_w + fx) * g->out_ch + c];
    }
  }
  return sum;
}

#endif

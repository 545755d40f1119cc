/* The register-blocked convolution's helpers, written once for each element type: the file that includes this
 * header defines MOTE_BLOCKED_X (activations), MOTE_BLOCKED_W (weights), MOTE_BLOCKED_ACC (sums) and
 * MOTE_BLOCKED_PARAMS (its params struct, with `geometry`, `plane_h` and `plane_w`) first, then keeps only its
 * own output stage (mote_conv_blocked_s16.c, mote_conv_blocked_f32.c). Zero is the padding value of both. */
#ifndef MOTE_CONV_BLOCKED_BODY_H
#define MOTE_CONV_BLOCKED_BODY_H

#include "mote_types.h"

/* n values from src to dst[4 * k] (one pixel of the interleaved block), or zeros when src is NULL. */
static void put(const MOTE_BLOCKED_X *src, int32_t n, MOTE_BLOCKED_X *dst) {
  if (src) {
    for (; n >= 4; n -= 4, src += 4, dst += 16) {
      dst[0] = src[0], dst[4] = src[1], dst[8] = src[2], dst[12] = src[3];
    }
    for (const MOTE_BLOCKED_X *last = src + n; src < last; ++src, dst += 4) *dst = *src;
  } else {
    for (MOTE_BLOCKED_X *last = dst + 4 * n; dst < last; dst += 4) *dst = 0;
  }
}

/* Filter rows [rows[0], rows[1]) of the window of output pixel (oy, ox) to dst[4 * tap]: rows inside the
 * input copied as one run where all their columns are inside too, tap by tap otherwise. */
static void gather(const mote_conv_geometry *g, const MOTE_BLOCKED_X *image, int32_t oy, int32_t ox, const int32_t rows[2],
                   MOTE_BLOCKED_X *dst) {
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left, c = g->in_ch;
  const int32_t run = g->filter_w * c;
  const int columns_inside = g->dilation_w == 1 && x0 >= 0 && x0 + g->filter_w <= g->in_w;
  for (int32_t fy = rows[0]; fy < rows[1]; ++fy, dst += 4 * run) {
    const int32_t iy = y0 + fy * g->dilation_h;
    if (iy < 0 || iy >= g->in_h) {
      put(NULL, run, dst);
    } else if (columns_inside) {
      put(image + (iy * g->in_w + x0) * c, run, dst);
    } else {
      for (int32_t fx = 0; fx < g->filter_w; ++fx) {
        const int32_t ix = x0 + fx * g->dilation_w;
        put(ix < 0 || ix >= g->in_w ? NULL : image + (iy * g->in_w + ix) * c, c, dst + 4 * fx * c);
      }
    }
  }
}

/* The image zero-padded into the plane: plane_h x plane_w pixels, the image's top left at (pad_top,
 * pad_left), so that every window lies inside it. */
static void pad_image(const MOTE_BLOCKED_PARAMS *p, const MOTE_BLOCKED_X *image, MOTE_BLOCKED_X *plane) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, left = g->pad_left * c, right = (p->plane_w - g->pad_left - g->in_w) * c;
  MOTE_BLOCKED_X *dst = plane;
  for (MOTE_BLOCKED_X *end = plane + g->pad_top * p->plane_w * c; dst < end; ++dst) *dst = 0;
  for (int32_t y = 0; y < g->in_h; ++y) {
    for (int32_t k = 0; k < left; ++k) *dst++ = 0;
    const MOTE_BLOCKED_X *src = image + y * g->in_w * c;
    for (int32_t k = 0; k < g->in_w * c; ++k) *dst++ = src[k];
    for (int32_t k = 0; k < right; ++k) *dst++ = 0;
  }
  for (MOTE_BLOCKED_X *end = plane + p->plane_h * p->plane_w * c; dst < end; ++dst) *dst = 0;
}

/* Filter rows [rows[0], rows[1]) of the block's four windows, from the padded plane, to dst[4 * tap + i]. */
static void gather_plane(const MOTE_BLOCKED_PARAMS *p, const MOTE_BLOCKED_X *plane, const int32_t oy[4],
                         const int32_t ox[4], const int32_t rows[2], MOTE_BLOCKED_X *dst) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t c = g->in_ch, run = g->filter_w * c, row_step = g->dilation_h * p->plane_w * c;
  const MOTE_BLOCKED_X *s0 = plane + ((oy[0] * g->stride_h + rows[0] * g->dilation_h) * p->plane_w + ox[0] * g->stride_w) * c;
  const MOTE_BLOCKED_X *s1 = plane + ((oy[1] * g->stride_h + rows[0] * g->dilation_h) * p->plane_w + ox[1] * g->stride_w) * c;
  const MOTE_BLOCKED_X *s2 = plane + ((oy[2] * g->stride_h + rows[0] * g->dilation_h) * p->plane_w + ox[2] * g->stride_w) * c;
  const MOTE_BLOCKED_X *s3 = plane + ((oy[3] * g->stride_h + rows[0] * g->dilation_h) * p->plane_w + ox[3] * g->stride_w) * c;
  for (int32_t fy = rows[0]; fy < rows[1]; ++fy, s0 += row_step, s1 += row_step, s2 += row_step, s3 += row_step) {
    if (g->dilation_w == 1) {
      for (int32_t k = 0; k < run; ++k, dst += 4) dst[0] = s0[k], dst[1] = s1[k], dst[2] = s2[k], dst[3] = s3[k];
      continue;
    }
    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
      const int32_t at = fx * g->dilation_w * c;
      for (int32_t k = at; k < at + c; ++k, dst += 4) dst[0] = s0[k], dst[1] = s1[k], dst[2] = s2[k], dst[3] = s3[k];
    }
  }
}

/* Kept out of line where the compiler allows, so that its sixteen accumulators, four inputs and three
 * pointers have the core's registers to themselves. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* acc[4i + j] = sum over taps of window i's tap times filter j's: x [tap][4], w [tap][4]. */
static OUT_OF_LINE void dot_4x4(const MOTE_BLOCKED_X *x, const MOTE_BLOCKED_W *w, int32_t taps, MOTE_BLOCKED_ACC acc[16]) {
  MOTE_BLOCKED_ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  MOTE_BLOCKED_ACC a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
/* One tap k of the four windows against the four filters. */
#define TAP(k)                                                                                  \
  do {                                                                                          \
    const MOTE_BLOCKED_ACC u0 = x[4 * (k)], u1 = x[4 * (k) + 1], u2 = x[4 * (k) + 2], u3 = x[4 * (k) + 3]; \
    MOTE_BLOCKED_ACC v = w[4 * (k)];                                                            \
    a0 += u0 * v, a4 += u1 * v, a8 += u2 * v, a12 += u3 * v;                                    \
    v = w[4 * (k) + 1];                                                                         \
    a1 += u0 * v, a5 += u1 * v, a9 += u2 * v, a13 += u3 * v;                                    \
    v = w[4 * (k) + 2];                                                                         \
    a2 += u0 * v, a6 += u1 * v, a10 += u2 * v, a14 += u3 * v;                                   \
    v = w[4 * (k) + 3];                                                                         \
    a3 += u0 * v, a7 += u1 * v, a11 += u2 * v, a15 += u3 * v;                                   \
  } while (0)
  for (const MOTE_BLOCKED_X *end = x + 4 * (taps & ~1); x < end; x += 8, w += 8) {  /* two taps a step */
    TAP(0);
    TAP(1);
  }
  if (taps & 1) TAP(0);
#undef TAP
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

/* The output pixels of the block from p0 (its missing ones repeating its last), and filter rows
 * [rows[0], rows[1]) that hold every row inside the input for any of them: the rows inside for the first
 * pixel end last, those for the last pixel start first. The others would only add zero taps, which TFLite
 * Micro skips. */
static void block_rows(const mote_conv_geometry *g, int32_t p0, int32_t count, int32_t oy[4], int32_t ox[4],
                       int32_t rows[2]) {
  int32_t y = p0 / g->out_w, x = p0 % g->out_w;
  for (int32_t i = 0; i < 4; ++i) {
    oy[i] = y, ox[i] = x;
    if (i + 1 < count && ++x == g->out_w) x = 0, ++y;
  }
  const int32_t top = oy[0] * g->stride_h - g->pad_top, bottom = oy[3] * g->stride_h - g->pad_top;
  int32_t lo = 0, hi = g->filter_h;
  while (lo < g->filter_h && bottom + lo * g->dilation_h < 0) ++lo;
  while (hi > 0 && top + (hi - 1) * g->dilation_h >= g->in_h) --hi;
  rows[0] = lo < hi ? lo : 0;
  rows[1] = lo < hi ? hi : 0;
}

#endif

/* mote_depthwise_conv_plane_s8's copies of input channels into its plane in scratch, and the plane's border.
 * Out of line: the walks' registers stay the walks'. */
#ifndef MOTE_DEPTHWISE_CONV_PLANE_FILL_H
#define MOTE_DEPTHWISE_CONV_PLANE_FILL_H

#include <stddef.h>
#include <stdint.h>
#include "mote_libc.h"

#include "mote_depthwise_conv_plane_s8.h"

#if defined(__GNUC__)
#define MOTE_FILL_OUTLINE static __attribute__((noinline))
#else
#define MOTE_FILL_OUTLINE static
#endif

/* Input channel c of one image into the plane at (pad_top, pad_left); the border keeps the zero point. */
MOTE_FILL_OUTLINE void fill_plane(const mote_depthwise_conv_plane_params *p, const int8_t *image, int32_t c,
                                   int8_t *plane) {
  const int32_t ch = p->in_ch, in_h = p->in_h, in_w = p->in_w, plane_w = p->plane_w;
  const int8_t *src = image + c;
  int8_t *dst = plane + p->pad_top * plane_w + p->pad_left;
  const int32_t in_w4 = in_w & ~3;
  for (int32_t iy = 0; iy < in_h; ++iy, dst += plane_w) {
    int32_t ix = 0;
    for (; ix < in_w4; ix += 4) { /* four bytes a step: one loop test, the source stepped as it is read */
      dst[ix] = *src, src += ch;
      dst[ix + 1] = *src, src += ch;
      dst[ix + 2] = *src, src += ch;
      dst[ix + 3] = *src, src += ch;
    }
    for (; ix < in_w; ++ix, src += ch) dst[ix] = *src;
  }
}

/* A word that may alias the bytes it is read from or written to (4-byte aligned here). */
#if defined(__GNUC__)
typedef uint32_t __attribute__((may_alias)) plane_word;
#else
typedef uint32_t plane_word;
#endif

/* Input channels c .. c + n - 1 (n <= 4) of one image into a plane of four interleaved channels (column x
 * of channel c + j at byte 4 * x + j); a pixel's four bytes are one word when the input's are aligned. */
MOTE_FILL_OUTLINE void fill_plane4(const mote_depthwise_conv_plane_params *p, const int8_t *image, int32_t c,
                                    int32_t n, int8_t *plane) {
  const int32_t ch = p->in_ch, in_h = p->in_h, in_w = p->in_w, plane_w = 4 * p->plane_w;
  const int8_t *src = image + c;
  int8_t *dst = plane + 4 * (p->pad_top * p->plane_w + p->pad_left);
  if (n == 4 && ch % 4 == 0 && ((uintptr_t)src & 3) == 0 && ((uintptr_t)plane & 3) == 0) {
    const int32_t in_w4 = in_w & ~3;
    for (int32_t iy = 0; iy < in_h; ++iy, dst += plane_w) {
      int32_t ix = 0;
      plane_word *d = (plane_word *)(void *)dst;
      for (; ix < in_w4; ix += 4) {
        d[ix] = *(const plane_word *)(const void *)src, src += ch;
        d[ix + 1] = *(const plane_word *)(const void *)src, src += ch;
        d[ix + 2] = *(const plane_word *)(const void *)src, src += ch;
        d[ix + 3] = *(const plane_word *)(const void *)src, src += ch;
      }
      for (; ix < in_w; ++ix, src += ch) d[ix] = *(const plane_word *)(const void *)src;
    }
    return;
  }
  const int32_t in_w4 = 4 * (in_w & ~3);
  for (int32_t j = 0; j < n; ++j) { /* a channel at a time, four bytes a step */
    const int8_t *s = src + j;
    int8_t *d = dst + j;
    for (int32_t iy = 0; iy < in_h; ++iy, d += plane_w) {
      int32_t ix = 0;
      for (; ix < in_w4; ix += 16) {
        d[ix] = *s, s += ch;
        d[ix + 4] = *s, s += ch;
        d[ix + 8] = *s, s += ch;
        d[ix + 12] = *s, s += ch;
      }
      for (; ix < 4 * in_w; ix += 4, s += ch) d[ix] = *s;
    }
  }
}

/* The plane's border (around the input at (pad_top, pad_left), `group` bytes a column) set to the zero point,
 * row by row: the fills overwrite the rest. */
MOTE_FILL_OUTLINE void fill_border(const mote_depthwise_conv_plane_params *p, int8_t *plane, int32_t group) {
  const size_t row = (size_t)p->plane_w * (size_t)group, left = (size_t)p->pad_left * (size_t)group;
  const size_t right = (size_t)(p->pad_left + p->in_w) * (size_t)group;
  const int zp = p->zero_point;
  memset(plane, zp, (size_t)p->pad_top * row);
  int8_t *r = plane + (size_t)p->pad_top * row;
  for (int32_t iy = 0; iy < p->in_h; ++iy, r += row) {
    if (left > 0) memset(r, zp, left);
    if (right < row) memset(r + right, zp, row - right);
  }
  memset(r, zp, (size_t)(p->plane_h - p->pad_top - p->in_h) * row);
}

#endif

/* mote_depthwise_conv_plane_s8's blocks and rows for a filter whose size is a constant of the caller (the shapes
 * of real models whose windows are short: 3x3 at stride 1, 5x5 at stride 2): every loop below has constant bounds,
 * so a compiler unrolls it whole and the sums, weights and input bytes live in registers. Each instance is a
 * function of its own (mote_depthwise_conv_plane_3x3_s8 and its kin), which the params name: a model links only
 * those it uses. */
#ifndef MOTE_DEPTHWISE_CONV_PLANE_FIXED_H
#define MOTE_DEPTHWISE_CONV_PLANE_FIXED_H

#include <stdint.h>

#include "mote_conv_common.h"
#include "mote_depthwise_conv_plane_s8.h"
#include "mote_output_stage.h"

#if defined(__GNUC__)
#define MOTE_FIXED_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_FIXED_INLINE static inline
#endif

/* `pixels` windows `stride` columns apart by `lanes` lanes (output channels of one input channel), a fh x fw
 * filter with taps one column apart across and `row_step` bytes apart down, columns `dx` bytes apart;
 * weights [fh][fw][lanes]. A filter row's input bytes are read once each, left to right, and each is added
 * to every window and lane it is a tap of: a row of windows overlapping by fw - stride columns costs
 * (pixels - 1) * stride + fw loads, not pixels * fw. acc[lanes * pixel + lane], at most 16. */
MOTE_FIXED_INLINE void mote_plane_fixed_block(const int8_t *x, const int8_t *w, int32_t row_step, int32_t dx,
                                              int32_t fh, int32_t fw, int32_t stride, int32_t lanes,
                                              int32_t pixels, const int32_t *bias, int32_t *acc) {
  int32_t a[16];
#pragma GCC unroll 32
  for (int32_t i = 0; i < pixels; ++i) {
#pragma GCC unroll 32
    for (int32_t j = 0; j < lanes; ++j) a[lanes * i + j] = bias[j];
  }
  const int32_t span = (pixels - 1) * stride + fw;
#pragma GCC unroll 32
  for (int32_t fy = 0; fy < fh; ++fy, x += row_step, w += fw * lanes) {
#pragma GCC unroll 32
    for (int32_t c = 0; c < span; ++c) {
      const int32_t v = x[c * dx];
#pragma GCC unroll 32
      for (int32_t fx = 0; fx < fw; ++fx) {
        const int32_t d = c - fx;
        if (d < 0 || d % stride != 0 || d / stride >= pixels) continue;
#pragma GCC unroll 32
        for (int32_t j = 0; j < lanes; ++j) mote_accumulate(&a[lanes * (d / stride) + j], w[fx * lanes + j] * v);
      }
    }
  }
#pragma GCC unroll 32
  for (int32_t i = 0; i < pixels * lanes; ++i) acc[i] = a[i];
}

/* An output through the channel's shortcuts as mote_output_of, the rest out of line: a fixed row function
 * inlines it for each of its block's outputs, whose sums stay in registers. */
MOTE_FIXED_INLINE void mote_plane_output_near(int32_t acc, const mote_output_channel *s, int8_t *out) {
  if (MOTE_LIKELY(acc > s->fast_after)) {
    if (MOTE_UNLIKELY(acc > s->max_above)) {
      *out = (int8_t)s->hi;
#if defined(__GNUC__)
      __asm__ volatile(""); /* a store of its own: not a select of act_max ahead of the likely path */
#endif
      return;
    }
    const uint64_t product = (uint64_t)(uint32_t)acc * s->m2;
    const uint32_t v = (uint32_t)(product >> 32) + ((uint32_t)product >> 31);
    *out = (int8_t)((int32_t)(v + s->k) >> s->shift);
  } else {
    *out = acc < s->min_below ? (int8_t)s->lo : mote_output_rest_s8(acc, s->row, (int32_t)s->offset, s->lo, s->hi);
  }
}

/* A row of outputs in blocks of eight pixels for a constant fh x fw filter, stride and lanes
 * (mote_plane_fixed_block), columns dx bytes apart in the plane, requantized from registers; a row
 * whose length is not a multiple of eight ends with the eight pixels that end it, its first outputs
 * written twice with the same values (rows have at least eight pixels). */
MOTE_FIXED_INLINE void mote_plane_fixed_row(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out,
                                            int32_t fh, int32_t fw, int32_t stride, int32_t lanes, int32_t dx) {
  const int32_t row_step = k->row_step, out_w = k->out_w, step = k->out_step;
  for (int32_t ox = 0; ox < out_w; ox += 8, x += 8 * stride * dx, out += 8 * step) {
    if (ox + 8 > out_w) { /* the last, overlapping the one before */
      x -= stride * dx * (ox + 8 - out_w), out -= step * (ox + 8 - out_w), ox = out_w - 8;
    }
    int32_t acc[16];
    mote_plane_fixed_block(x, w, row_step, dx, fh, fw, stride, lanes, 8, k->bias, acc);
#pragma GCC unroll 4
    for (int32_t j = 0; j < lanes; ++j) {
      const mote_output_channel stage = k->stage[j];
      int8_t *o = out + j;
#pragma GCC unroll 8
      for (int32_t i = 0; i < 8; ++i, o += step) mote_plane_output_near(acc[lanes * i + j], &stage, o);
    }
  }
}

#endif

/* mote_depthwise_conv_plane_s8's blocks for a filter whose size is a constant of the caller (the shapes of real
 * models whose windows are short: 3x3 at stride 1, 5x5 at stride 2): every loop below has constant bounds, so a
 * compiler unrolls it whole and the sums, weights and input bytes live in registers. */
#ifndef MOTE_DEPTHWISE_CONV_PLANE_FIXED_H
#define MOTE_DEPTHWISE_CONV_PLANE_FIXED_H

#include <stdint.h>

#include "mote_conv_common.h"

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

#endif

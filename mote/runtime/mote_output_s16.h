/* The output stage of the 16x8 kernels (mote_conv_s16, mote_depthwise_conv_s16, mote_fully_connected_s16):
 * an int64 accumulator through TFLite's int64 requantization, or (acc64 = 0, an int32 bias) the low 32
 * bits through the int32 one, as the interpreter's int32 accumulator wraps; then the offset and clamp. */
#ifndef MOTE_OUTPUT_S16_H
#define MOTE_OUTPUT_S16_H

#include "mote_fixedpoint.h"

static inline int16_t mote_output_s16(int64_t acc, int32_t acc64, int32_t multiplier, int32_t shift,
                                      int32_t offset, int32_t act_min, int32_t act_max) {
  const int32_t scaled = acc64 ? mote_requantize64(acc, multiplier, shift)
                               : mote_requantize((int32_t)(uint32_t)(uint64_t)acc, multiplier, shift);
  return (int16_t)mote_clamp(mote_add_wrap(scaled, offset), act_min, act_max);
}

/* The 16x8 kernels' inner loops run sixteen lanes at a time, a trip count the compiler's cheapest
 * vectorizer (gcc -O2) takes, then the rest one by one; restrict: the int8 weights cannot alias the
 * accumulators. */

/* acc[i] += v * w[i] for i < n: the convolutions' loop along the output channels. */
static inline void mote_axpy_s16(int32_t *restrict acc, const int8_t *restrict w, int32_t v, int32_t n) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int32_t k = 0; k < 16; ++k) acc[i + k] += v * w[i + k];
  }
  for (; i < n; ++i) acc[i] += v * w[i];
}

/* acc[i] += x[i] * w[i] for i < n: the 16x8 depthwise inner loop, channel by channel. */
static inline void mote_dot_lanes_s16(int32_t *restrict acc, const int8_t *restrict w, const int16_t *restrict x,
                                      int32_t n) {
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int32_t k = 0; k < 16; ++k) acc[i + k] += x[i + k] * w[i + k];
  }
  for (; i < n; ++i) acc[i] += x[i] * w[i];
}

/* sum over i < n of (w[i] + w_offset) * (x[i] + x_offset), in int32 (no partial sum leaves it: checked at
 * compile time): the fully connected layer's dot product. */
static inline int32_t mote_dot_s16(const int8_t *restrict w, const int16_t *restrict x, int32_t w_offset,
                                   int32_t x_offset, int32_t n) {
  int32_t lanes[16] = {0};
  int32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int32_t k = 0; k < 16; ++k) lanes[k] += (w[i + k] + w_offset) * (x[i + k] + x_offset);
  }
  int32_t sum = 0;
  for (int32_t k = 0; k < 16; ++k) sum += lanes[k];
  for (; i < n; ++i) sum += (w[i] + w_offset) * (x[i] + x_offset);
  return sum;
}

#endif

#ifndef MOTE_DOT_RING_4X4_S8_H
#define MOTE_DOT_RING_4X4_S8_H

#include <stdint.h>

#include "mote_conv_common.h"

/* mote_conv_ring_s8's inner loop: four neighbouring output pixels by four filters over the rows of a
 * ring (mote_conv_ring_s8.h) and the channel pairs of each, three filter columns; the sixteen outputs
 * written through `how` (mote_conv_common.h) from the accumulators
 * acc[4i + q] = bias[q] + sum over filter rows fy < fh, channel pairs jc < pairs and columns fx < 3 of
 * mote_pair_dot(r[jc * width + s * i + fx], w_q), r = rows[fy] + offset (offset and width in bytes),
 * s the stride (1 or 2). w holds, per filter row and channel pair, 13 words: a kind, then the pair
 * words of columns 0, 1, 2, four filters each. The kind says which two columns share roundings
 * (mote_pair_dot2; the compiler proved their four products per pixel and filter fit 16 bits):
 * 0 none; at stride 1, 1 columns 0 and 1, 2 columns 1 and 2; at stride 2, 1 columns 0 and 2.
 * On rv32 they are assembly (mote_micro_s8.S, mote/targets/rv32/micro.py); the C is their twin for
 * other targets. */
void mote_dot_ring_s1_4x4_s8(int32_t *const *rows, int32_t fh, int32_t offset, int32_t width, int32_t pairs,
                             const int32_t *w, const int32_t *bias, const mote_block_out *how);
void mote_dot_ring_s2_4x4_s8(int32_t *const *rows, int32_t fh, int32_t offset, int32_t width, int32_t pairs,
                             const int32_t *w, const int32_t *bias, const mote_block_out *how);

/* The C twins' one loop, for a stride of 1 or 2. */
static inline void mote_dot_ring_4x4(int32_t stride, int32_t *const *rows, int32_t fh, int32_t offset,
                                     int32_t width, int32_t pairs, const int32_t *w, const int32_t *bias,
                                     const mote_block_out *how) {
  /* The columns that share roundings, by kind: none, or a and b. */
  static const int32_t first[2][3] = {{-1, 0, 1}, {-1, 0, -1}}, second[2][3] = {{-1, 1, 2}, {-1, 2, -1}};
  int32_t acc[16];
  for (int32_t k = 0; k < 16; ++k) acc[k] = bias[k % 4];
  for (int32_t fy = 0; fy < fh; ++fy) {
    const int32_t *r = (const int32_t *)(const void *)((const int8_t *)rows[fy] + offset);
    for (int32_t jc = 0; jc < pairs; ++jc, w += 13) {
      const int32_t *x = (const int32_t *)(const void *)((const int8_t *)r + jc * width);
      const int32_t a = first[stride - 1][w[0]], b = second[stride - 1][w[0]];
      for (int32_t i = 0; i < 4; ++i) {
        for (int32_t q = 0; q < 4; ++q) {
          int32_t sum = 0;
          for (int32_t fx = 0; fx < 3; ++fx) {
            if (fx != a && fx != b) sum += mote_pair_dot(x[stride * i + fx], w[1 + 4 * fx + q]);
          }
          if (a >= 0) {
            sum += mote_pair_dot2(x[stride * i + a], w[1 + 4 * a + q], x[stride * i + b], w[1 + 4 * b + q]);
          }
          acc[4 * i + q] += sum;
        }
      }
    }
  }
  mote_block_out_4x4(how, acc);
}

#endif

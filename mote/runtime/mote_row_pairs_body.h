/* The row-pairs kernels' loops (mote_fully_connected_row_pairs_s8, and mote_conv_row_pairs_s8 for pointwise
 * convolutions, each pixel a batch row): written once, included by both. */
#ifndef MOTE_ROW_PAIRS_BODY_H
#define MOTE_ROW_PAIRS_BODY_H

#include "mote_conv_common.h"
#include "mote_fully_connected_row_pairs_s8.h"

#if defined(__GNUC__)
#define MOTE_ROW_PAIRS_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_ROW_PAIRS_INLINE static inline
#endif

/* For pairs q < pairs <= 4: lo[q] = the sum of the words u * W (modulo 2^32), hi[q] = the second row's
 * sum, over n inputs: `step` (4 or 8) a loop step, two at a time (the words of inputs k and k + 1 at
 * g = w + k * pairs), then two and the last one alone. With `pairs` and `step` constants (the callers
 * below) the tests fold away and the sums stay in registers. */
#define MOTE_RP_PAIRS(STEP) STEP(0) STEP(1) STEP(2) STEP(3)
#define MOTE_RP_ZERO(q) uint32_t lo##q = 0; int32_t hi##q = 0;
#define MOTE_RP_TWO(q) \
  if ((q) < pairs) { \
    const uint32_t a = (uint32_t)u * (uint32_t)g[q] + (uint32_t)v * (uint32_t)g[pairs + (q)]; \
    lo##q += a; \
    hi##q += (int32_t)(a + 0x8000u) >> 16; \
  }
#define MOTE_RP_GROUP(k) \
  { \
    const int32_t u = x[k], v = x[(k) + 1]; \
    const int32_t *g = w + (k) * pairs; \
    MOTE_RP_PAIRS(MOTE_RP_TWO) \
  }
#define MOTE_RP_ONE(q) \
  if ((q) < pairs) { \
    const uint32_t a = (uint32_t)u * (uint32_t)w[q]; \
    lo##q += a; \
    hi##q += (int32_t)(a + 0x8000u) >> 16; \
  }
/* The sums leave registers as acc[j] = bias[j] + base + row j's dot product, added modulo 2^32 (the total
 * fits int32: checked at compile time; its parts need not). */
#define MOTE_RP_STORE(q) \
  if ((q) < pairs) { \
    acc[2 * (q)] = (int32_t)((uint32_t)bias[2 * (q)] + (uint32_t)base + lo##q - ((uint32_t)hi##q << 16)); \
    acc[2 * (q) + 1] = (int32_t)((uint32_t)bias[2 * (q) + 1] + (uint32_t)base + (uint32_t)hi##q); \
  }
MOTE_ROW_PAIRS_INLINE void dot_pairs(const int8_t *x, const int32_t *w, int32_t n, int32_t pairs, int32_t step,
                                     const int32_t *bias, int32_t base, int32_t *acc) {
  MOTE_RP_PAIRS(MOTE_RP_ZERO)
  for (const int8_t *end = x + n - n % step; x != end; x += step, w += step * pairs) {
    MOTE_RP_GROUP(0)
    MOTE_RP_GROUP(2)
    if (step == 8) {
      MOTE_RP_GROUP(4)
      MOTE_RP_GROUP(6)
    }
  }
  for (int32_t k = 0; k < (n % step) / 2; ++k, x += 2, w += 2 * pairs) MOTE_RP_GROUP(0)
  if (n & 1) {
    const int32_t u = *x;
    MOTE_RP_PAIRS(MOTE_RP_ONE)
  }
  MOTE_RP_PAIRS(MOTE_RP_STORE)
}
#undef MOTE_RP_ZERO
#undef MOTE_RP_TWO
#undef MOTE_RP_GROUP
#undef MOTE_RP_ONE
#undef MOTE_RP_STORE
#undef MOTE_RP_PAIRS

/* acc[j] = bias[j] + base + the dot product of row j, for the rows of a block of 4, 3, 2 or 1 pairs, its width
 * a constant in each case; eight inputs a step for one or two pairs (the loop's own instructions then a tenth
 * of the step's), four for more. */
MOTE_ROW_PAIRS_INLINE void dot_block(const int8_t *x, const int32_t *w, int32_t n, int32_t pairs,
                                     const int32_t *bias, int32_t base, int32_t *acc) {
  switch (pairs) {
    case 1: dot_pairs(x, w, n, 1, 8, bias, base, acc); break;
    case 2: dot_pairs(x, w, n, 2, 8, bias, base, acc); break;
    case 3: dot_pairs(x, w, n, 3, 4, bias, base, acc); break;
    default: dot_pairs(x, w, n, 4, 4, bias, base, acc); break;
  }
}

/* The layer: every batch row (a pixel of a pointwise convolution) through every block of row pairs. */
static mote_status row_pairs_run(const mote_fully_connected_row_pairs_params *p, const int8_t *input,
                                 int8_t *output) {
  const int32_t n = p->accum_depth, m = p->out_depth, all_pairs = (m + 1) / 2;
  if (n <= 0) return MOTE_ERROR;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int8_t *out = output + b * m;
    const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
    const int32_t *w = p->weights;
    for (int32_t q0 = 0, pairs; q0 < all_pairs; q0 += pairs, w += pairs * n) {
      pairs = all_pairs - q0 < 4 ? all_pairs - q0 : 4;
      const int32_t o = 2 * q0, rows = m - o < 2 * pairs ? m - o : 2 * pairs;
      int32_t acc[8];
      dot_block(x, w, n, pairs, p->bias + o, base, acc);
      for (int32_t j = 0; j < rows; ++j) {
        const mote_output_channel ch = mote_output_channel_at(p->output_stage, o + j, p->output_offset, p->act_min,
                                                              p->act_max);
        const int32_t a = acc[j];
        /* the shortcuts in line, the rest of the output stage out of line (a call only where neither applies) */
        out[o + j] = MOTE_LIKELY(a > ch.fast_after) ? mote_output_positive(a, &ch)
                     : a < ch.min_below ? (int8_t)ch.lo
                                        : mote_output_rest_s8(a, ch.row, p->output_offset, p->act_min, p->act_max);
      }
    }
  }
  return MOTE_OK;
}

#endif

#ifndef MOTE_PACKED_DOT_S8_H
#define MOTE_PACKED_DOT_S8_H

#include <stdint.h>

/* The inner loops of the kernels that take sub-byte weights two products per multiply
 * (mote_fully_connected_packed_s8.h explains the scheme and the weights' layout): rows of int4 or int2 weights
 * as biased fields in words, against an input row laid out as words X = x[a] * 2^16 + x[a + V / 2]. */

/* The sum of two weight words' products with their input words xs[0 .. V), V = 32 / bits (the header's scheme),
 * plus 2^15: its high half is sum_j x[a] * u_j + x[a + V / 2] * u_{j + V / 2} over the words' fields. */
static inline uint32_t mote_packed_words_int4(uint32_t l, uint32_t h, const uint32_t *xs) {
  const uint32_t mask = 0x000F000Fu;
  return xs[0] * (l & mask) + xs[1] * ((l >> 4) & mask) + xs[2] * ((l >> 8) & mask) + xs[3] * ((l >> 12) & mask) +
         xs[4] * (h & mask) + xs[5] * ((h >> 4) & mask) + xs[6] * ((h >> 8) & mask) + xs[7] * ((h >> 12) & mask) +
         0x8000u;
}

static inline uint32_t mote_packed_word_int2(uint32_t l, const uint32_t *xs) {
  const uint32_t mask = 0x00030003u;
  return xs[0] * (l & mask) + xs[1] * ((l >> 2) & mask) + xs[2] * ((l >> 4) & mask) + xs[3] * ((l >> 6) & mask) +
         xs[4] * ((l >> 8) & mask) + xs[5] * ((l >> 10) & mask) + xs[6] * ((l >> 12) & mask) +
         xs[7] * ((l >> 14) & mask);
}

#if defined(__GNUC__)
/* Its accumulators and inputs have the registers to themselves; unused in a file that needs another width. */
#define MOTE_PACKED_OUT_OF_LINE __attribute__((noinline, unused))
#else
#define MOTE_PACKED_OUT_OF_LINE
#endif

/* acc[r] = sum_d u[r][d] * x[d] for a block of four rows, their words interleaved ([row_words][4]), two words of
 * each row a step (STEP input words); each step's sum fits 16 bits (mote_fully_connected_packed_s8.h's bounds). */
#define MOTE_PACKED_DOT4(NAME, WORDS, STEP)                                                                     \
  static MOTE_PACKED_OUT_OF_LINE void NAME(const uint32_t *w, int32_t row_words, const uint32_t *xs, int32_t *acc) { \
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                                    \
    for (const uint32_t *end = w + 4 * row_words; w != end; w += 8, xs += (STEP)) {                            \
      a0 += (int32_t)WORDS(w[0], w[4], xs) >> 16;                                                              \
      a1 += (int32_t)WORDS(w[1], w[5], xs) >> 16;                                                              \
      a2 += (int32_t)WORDS(w[2], w[6], xs) >> 16;                                                              \
      a3 += (int32_t)WORDS(w[3], w[7], xs) >> 16;                                                              \
    }                                                                                                           \
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;                                                        \
  }
MOTE_PACKED_DOT4(mote_packed_dot4_int4, mote_packed_words_int4, 8)

/* The same for one row, its words in order: int4 two words a step, int2 one. */
static inline int32_t mote_packed_dot1_int4(const uint32_t *w, int32_t row_words, const uint32_t *xs) {
  int32_t a0 = 0;
  for (const uint32_t *end = w + row_words; w != end; w += 2, xs += 8) {
    a0 += (int32_t)mote_packed_words_int4(w[0], w[1], xs) >> 16;
  }
  return a0;
}

static inline int32_t mote_packed_dot1_int2(const uint32_t *w, int32_t row_words, const uint32_t *xs) {
  int32_t a0 = 0;
  for (const uint32_t *end = w + row_words; w != end; ++w, xs += 8) {
    a0 += (int32_t)(mote_packed_word_int2(*w, xs) + 0x8000u) >> 16;
  }
  return a0;
}
#undef MOTE_PACKED_DOT4

/* int2 four rows, a word of each row a step (eight input words): more would not fit the registers. */
static MOTE_PACKED_OUT_OF_LINE void mote_packed_dot4_int2(const uint32_t *w, int32_t row_words,
                                                                const uint32_t *xs, int32_t *acc) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (const uint32_t *end = w + 4 * row_words; w != end; w += 4, xs += 8) {
    a0 += (int32_t)(mote_packed_word_int2(w[0], xs) + 0x8000u) >> 16;
    a1 += (int32_t)(mote_packed_word_int2(w[1], xs) + 0x8000u) >> 16;
    a2 += (int32_t)(mote_packed_word_int2(w[2], xs) + 0x8000u) >> 16;
    a3 += (int32_t)(mote_packed_word_int2(w[3], xs) + 0x8000u) >> 16;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* xs[i] = x[a] * 2^16 + x[a + h] for a = 2h * (i / h) + i % h (zero past n), i < words; returns sum_d x[d]. */
static inline int32_t mote_packed_input_words(const int8_t *x, int32_t n, int32_t h, int32_t words, uint32_t *xs) {
  int32_t sum = 0, a = 0, i = 0;
  for (; a + 2 * h <= n; a += 2 * h) { /* whole groups of 2h inputs */
    for (int32_t j = 0; j < h; ++j, ++i) {
      const int32_t hi = x[a + j], lo = x[a + h + j];
      sum += hi + lo;
      xs[i] = (uint32_t)hi * 65536u + (uint32_t)lo;
    }
  }
  for (; i < words; ++i) { /* the groups with inputs past n */
    const int32_t at = i / h * 2 * h + i % h, hi = at < n ? x[at] : 0, lo = at + h < n ? x[at + h] : 0;
    sum += hi + lo;
    xs[i] = (uint32_t)hi * 65536u + (uint32_t)lo;
  }
  return sum;
}

/* dot[r] = sum_d u[r][d] * x[d] for a block of four rows (their words interleaved) of `bits` bits. */
static inline void mote_packed_dot4(const uint32_t *block, int32_t row_words, int32_t bits, const uint32_t *xs,
                                    int32_t dot[4]) {
  if (bits == 4) {
    mote_packed_dot4_int4(block, row_words, xs, dot);
  } else {
    mote_packed_dot4_int2(block, row_words, xs, dot);
  }
}

/* The same for one row, its words in order. */
static inline int32_t mote_packed_dot1(const uint32_t *row, int32_t row_words, int32_t bits, const uint32_t *xs) {
  return bits == 4 ? mote_packed_dot1_int4(row, row_words, xs) : mote_packed_dot1_int2(row, row_words, xs);
}

#endif

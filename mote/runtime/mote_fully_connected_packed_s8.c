#include "mote_fully_connected_packed_s8.h"

#include "mote_output_stage.h"

/* The sum of two weight words' products with their input words xs[0 .. V), V = 32 / bits (the header's scheme),
 * plus 2^15: its high half is sum_j x[a] * u_j + x[a + V / 2] * u_{j + V / 2} over the words' fields. */
static inline uint32_t words_dot_int4(uint32_t l, uint32_t h, const uint32_t *xs) {
  const uint32_t mask = 0x000F000Fu;
  return xs[0] * (l & mask) + xs[1] * ((l >> 4) & mask) + xs[2] * ((l >> 8) & mask) + xs[3] * ((l >> 12) & mask) +
         xs[4] * (h & mask) + xs[5] * ((h >> 4) & mask) + xs[6] * ((h >> 8) & mask) + xs[7] * ((h >> 12) & mask) +
         0x8000u;
}

static inline uint32_t word_dot_int2(uint32_t l, const uint32_t *xs) {
  const uint32_t mask = 0x00030003u;
  return xs[0] * (l & mask) + xs[1] * ((l >> 2) & mask) + xs[2] * ((l >> 4) & mask) + xs[3] * ((l >> 6) & mask) +
         xs[4] * ((l >> 8) & mask) + xs[5] * ((l >> 10) & mask) + xs[6] * ((l >> 12) & mask) +
         xs[7] * ((l >> 14) & mask);
}

static inline uint32_t words_dot_int2(uint32_t l, uint32_t h, const uint32_t *xs) {
  return word_dot_int2(l, xs) + word_dot_int2(h, xs + 8) + 0x8000u;
}

#if defined(__GNUC__)
#define MOTE_OUT_OF_LINE __attribute__((noinline)) /* its accumulators and inputs have the registers */
#else
#define MOTE_OUT_OF_LINE
#endif

/* acc[r] = sum_d u[r][d] * x[d] for a block of four rows, their words interleaved ([row_words][4]), two words of
 * each row a step (STEP input words); each step's sum fits 16 bits (the header's bounds, doubled). */
#define MOTE_PACKED_DOT4(NAME, WORDS, STEP)                                                                     \
  static MOTE_OUT_OF_LINE void NAME(const uint32_t *w, int32_t row_words, const uint32_t *xs, int32_t *acc) { \
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                                    \
    for (const uint32_t *end = w + 4 * row_words; w != end; w += 8, xs += (STEP)) {                            \
      a0 += (int32_t)WORDS(w[0], w[4], xs) >> 16;                                                              \
      a1 += (int32_t)WORDS(w[1], w[5], xs) >> 16;                                                              \
      a2 += (int32_t)WORDS(w[2], w[6], xs) >> 16;                                                              \
      a3 += (int32_t)WORDS(w[3], w[7], xs) >> 16;                                                              \
    }                                                                                                           \
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;                                                        \
  }
MOTE_PACKED_DOT4(dot4_int4, words_dot_int4, 8)

/* The same for one row, its words in order. */
#define MOTE_PACKED_DOT1(NAME, WORDS, STEP)                                            \
  static int32_t NAME(const uint32_t *w, int32_t row_words, const uint32_t *xs) {     \
    int32_t a0 = 0;                                                                   \
    for (const uint32_t *end = w + row_words; w != end; w += 2, xs += (STEP)) {       \
      a0 += (int32_t)WORDS(w[0], w[1], xs) >> 16;                                     \
    }                                                                                  \
    return a0;                                                                         \
  }
MOTE_PACKED_DOT1(dot1_int4, words_dot_int4, 8)
MOTE_PACKED_DOT1(dot1_int2, words_dot_int2, 16)
#undef MOTE_PACKED_DOT1
#undef MOTE_PACKED_DOT4

/* int2 four rows, a word of each row a step (eight input words): more would not fit the registers. */
static MOTE_OUT_OF_LINE void dot4_int2(const uint32_t *w, int32_t row_words, const uint32_t *xs, int32_t *acc) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (const uint32_t *end = w + 4 * row_words; w != end; w += 4, xs += 8) {
    a0 += (int32_t)(word_dot_int2(w[0], xs) + 0x8000u) >> 16;
    a1 += (int32_t)(word_dot_int2(w[1], xs) + 0x8000u) >> 16;
    a2 += (int32_t)(word_dot_int2(w[2], xs) + 0x8000u) >> 16;
    a3 += (int32_t)(word_dot_int2(w[3], xs) + 0x8000u) >> 16;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* xs[i] = x[a] * 2^16 + x[a + h] for a = 2h * (i / h) + i % h (zero past n), i < words; returns sum_d x[d]. */
static int32_t input_words(const int8_t *x, int32_t n, int32_t h, int32_t words, uint32_t *xs) {
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

mote_status mote_fully_connected_packed_s8(const mote_fully_connected_packed_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch) {
  if (p->bits != 4 && p->bits != 2) return MOTE_ERROR;
  const int32_t n = p->accum_depth, half = 1 << (p->bits - 1), per_word = 32 / p->bits;
  const int32_t words = p->row_words * (per_word / 2);
  if (p->row_words % 2 || p->row_words * per_word < n || scratch.size < (size_t)words * sizeof(uint32_t)) return MOTE_ERROR;
  uint32_t *xs = (uint32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    const int32_t sum = input_words(x, n, per_word / 2, words, xs);
    /* |acc| <= |bias| + n * 128 * (|filter_offset| + half) + n * 128 * (2 * half - 1): within the bound above. */
    const int32_t base = (p->filter_offset - half) * sum;
    int8_t *out = output + b * p->out_depth;
    int32_t o = 0;
    for (; o + 4 <= p->out_depth; o += 4) {
      int32_t dot[4];
      const uint32_t *block = p->weights + o * p->row_words;
      if (p->bits == 4) {
        dot4_int4(block, p->row_words, xs, dot);
      } else {
        dot4_int2(block, p->row_words, xs, dot);
      }
      for (int32_t r = 0; r < 4; ++r) out[o + r] = mote_conv_output(&s, p->bias[o + r] + base + dot[r], o + r);
    }
    for (; o < p->out_depth; ++o) {
      const uint32_t *row = p->weights + o * p->row_words;
      const int32_t dot = p->bits == 4 ? dot1_int4(row, p->row_words, xs) : dot1_int2(row, p->row_words, xs);
      out[o] = mote_conv_output(&s, p->bias[o] + base + dot, o);
    }
  }
  return MOTE_OK;
}

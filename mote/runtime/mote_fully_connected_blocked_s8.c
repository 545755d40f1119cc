#include "mote_fully_connected_blocked_s8.h"

#include "mote_conv_common.h"

#if defined(__GNUC__)
#define MOTE_FC_INLINE static inline __attribute__((always_inline))
#else
#define MOTE_FC_INLINE static inline
#endif

/* acc[j] += sum_d x[d] * w[rows * d + j], j < rows <= 16, n > 0, two inputs per step. With `rows` a
 * constant (the callers below) the tests `j < rows` fold away: the sums stay in registers and the weights
 * are read at fixed offsets. Each |acc| <= |bias| + accum_depth * 128 * (128 + |filter_offset|) < 2^31
 * (checked at compile time). */
#define MOTE_FC_ROWS(STEP) \
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) \
  STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
#define MOTE_FC_LOAD(j) int32_t a##j = (j) < rows ? acc[j] : 0;
#define MOTE_FC_PAIR(j) if ((j) < rows) a##j += u * w[j] + v * w[rows + (j)];
#define MOTE_FC_ONE(j) if ((j) < rows) a##j += u * w[j];
#define MOTE_FC_STORE(j) if ((j) < rows) acc[j] = a##j;
MOTE_FC_INLINE void dot_rows(const int8_t *x, const int8_t *w, int32_t n, int32_t rows, int32_t *acc) {
  MOTE_FC_ROWS(MOTE_FC_LOAD)
  const int8_t *pairs_end = x + (n & ~1);
  for (; x != pairs_end; x += 2, w += 2 * rows) {
    const int32_t u = x[0], v = x[1];
    MOTE_FC_ROWS(MOTE_FC_PAIR)
  }
  if (n & 1) {
    const int32_t u = *x;
    MOTE_FC_ROWS(MOTE_FC_ONE)
  }
  MOTE_FC_ROWS(MOTE_FC_STORE)
}
#undef MOTE_FC_LOAD
#undef MOTE_FC_PAIR
#undef MOTE_FC_ONE
#undef MOTE_FC_STORE
#undef MOTE_FC_ROWS

/* dot_rows for a block of 16, 8, 4, 3, 2 or 1 rows, its width a constant in each case. */
static void dot_block(const int8_t *x, const int8_t *w, int32_t n, int32_t rows, int32_t *acc) {
  switch (rows) {
    case 1: dot_rows(x, w, n, 1, acc); break;
    case 2: dot_rows(x, w, n, 2, acc); break;
    case 3: dot_rows(x, w, n, 3, acc); break;
    case 4: dot_rows(x, w, n, 4, acc); break;
    case 8: dot_rows(x, w, n, 8, acc); break;
    default: dot_rows(x, w, n, 16, acc); break;
  }
}

/* The width of the block of rows that starts `left` rows before the last: 16, then 8, 4 and the last 1 to 3. */
static int32_t block_width(int32_t left) {
  return left >= 16 ? 16 : left >= 8 ? 8 : left >= 4 ? 4 : left;
}

mote_status mote_fully_connected_blocked_s8(const mote_fully_connected_blocked_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t n = p->accum_depth, m = p->out_depth;
  if (n <= 0) return MOTE_ERROR;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int8_t *out = output + b * m;
    const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
    for (int32_t o = 0, rows; o < m; o += rows) {
      rows = block_width(m - o);
      int32_t acc[16];
      for (int32_t j = 0; j < rows; ++j) acc[j] = p->bias[o + j] + base;
      dot_block(x, p->weights + o * n, n, rows, acc);
      for (int32_t j = 0; j < rows; ++j) out[o + j] = mote_conv_output(&s, acc[j], o + j);
    }
  }
  return MOTE_OK;
}

#include "mote_fully_connected_pairs_s8.h"

#include "mote_conv_common.h"

#define MOTE_FCP_ROWS(STEP) \
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) \
  STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
#define MOTE_FCP_LOAD(j) int32_t a##j = acc[j];
#define MOTE_FCP_SHARED(j) mote_accumulate(&a##j, mote_pair_dot2(u, w[j], v, w[16 + (j)]));
#define MOTE_FCP_SEPARATE(j) \
  mote_accumulate(&a##j, mote_pair_dot(u, w[j])); \
  mote_accumulate(&a##j, mote_pair_dot(v, w[16 + (j)]));
#define MOTE_FCP_STORE(j) acc[j] = a##j;

/* The input word at byte offset `at` of the packed input. */
#define MOTE_FCP_WORD(xs, at) (*(const int32_t *)(const void *)((const char *)(xs) + (at)))

/* acc[j] += the block's sums over its groups, j < 16: `runs` gives how many share their roundings (first)
 * and how many do not, `offsets` each group's two input words; returns the weights past the block. Each
 * |acc| <= |bias| + accum_depth * 128 * (128 + |filter_offset|) < 2^31 (checked at compile time). */
static const int32_t *dot_block(const int32_t *xs, const int32_t *w, const uint16_t *runs, const uint16_t **offsets,
                                int32_t *acc) {
  MOTE_FCP_ROWS(MOTE_FCP_LOAD)
  const uint16_t *at = *offsets;
  const uint16_t *shared_end = at + 2 * runs[0], *separate_end = shared_end + 2 * runs[1];
  for (; at != shared_end; at += 2, w += 32) {
    const int32_t u = MOTE_FCP_WORD(xs, at[0]), v = MOTE_FCP_WORD(xs, at[1]);
    MOTE_FCP_ROWS(MOTE_FCP_SHARED)
  }
  for (; at != separate_end; at += 2, w += 32) {
    const int32_t u = MOTE_FCP_WORD(xs, at[0]), v = MOTE_FCP_WORD(xs, at[1]);
    MOTE_FCP_ROWS(MOTE_FCP_SEPARATE)
  }
  MOTE_FCP_ROWS(MOTE_FCP_STORE)
  *offsets = at;
  return w;
}
/* dot_block for groups of consecutive input words, in order: `runs` gives them as runs, (groups sharing, groups
 * not) count pairs, until the block's groups are all counted. */
static const int32_t *dot_block_in_order(const int32_t *xs, const int32_t *w, const uint16_t **runs,
                                         int32_t groups, int32_t *acc) {
  MOTE_FCP_ROWS(MOTE_FCP_LOAD)
  const uint16_t *r = *runs;
  const int32_t *end = xs + 2 * groups;
  while (xs != end) {
    const int32_t *shared_end = xs + 2 * r[0], *separate_end = shared_end + 2 * r[1];
    r += 2;
    for (; xs != shared_end; xs += 2, w += 32) {
      const int32_t u = xs[0], v = xs[1];
      MOTE_FCP_ROWS(MOTE_FCP_SHARED)
    }
    for (; xs != separate_end; xs += 2, w += 32) {
      const int32_t u = xs[0], v = xs[1];
      MOTE_FCP_ROWS(MOTE_FCP_SEPARATE)
    }
  }
  MOTE_FCP_ROWS(MOTE_FCP_STORE)
  *runs = r;
  return w;
}
#undef MOTE_FCP_LOAD
#undef MOTE_FCP_SHARED
#undef MOTE_FCP_SEPARATE
#undef MOTE_FCP_STORE
#undef MOTE_FCP_ROWS
#undef MOTE_FCP_WORD

mote_status mote_fully_connected_pairs_s8(const mote_fully_connected_pairs_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const int32_t n = p->accum_depth, m = p->out_depth;
  (void)scratch;
  if (n <= 0 || n % 4 || n > MOTE_FULLY_CONNECTED_PAIRS_MAX_DEPTH || m % 16) return MOTE_ERROR;
  int32_t xs[MOTE_FULLY_CONNECTED_PAIRS_MAX_DEPTH / 2]; /* on the stack: no static RAM, only n / 2 words written */
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int8_t *out = output + b * m;
    for (int32_t k = 0; k < n / 2; ++k) xs[k] = x[2 * k] * 65536 + x[2 * k + 1];
    const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
    const int32_t *w = p->weights;
    const uint16_t *offsets = p->offsets, *runs = p->runs;
    for (int32_t o = 0; o < m; o += 16) {
      int32_t acc[16];
      for (int32_t j = 0; j < 16; ++j) acc[j] = p->bias[o + j] + base;
      if (offsets != NULL) {
        w = dot_block(xs, w, runs + 2 * (o / 16), &offsets, acc);
      } else {
        w = dot_block_in_order(xs, w, &runs, n / 4, acc);
      }
      for (int32_t j = 0; j < 16; ++j) out[o + j] = mote_conv_output(&s, acc[j], o + j);
    }
  }
  return MOTE_OK;
}

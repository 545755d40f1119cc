#include "mote_fully_connected_bytes_s8.h"

#include "mote_conv_common.h"

/* One input word of the table: x = x0 * 2^16 + x1 and k = 2^14 - 128 * ((x0 + x1) * 2^16 + x1), modulo 2^32:
 * for a row's pair word M = W + 128 * (1 + 2^16) (the biased bytes), x * M + k = x * W + 2^14. */
typedef struct {
  uint32_t x, k;
} mote_fcb_word;

#define MOTE_FCB_ROWS(STEP) \
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) \
  STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
#define MOTE_FCB_LOAD(j) int32_t a##j = acc[j];
/* x_a * W_a + x_b * W_b + 2^15, its high half: mote_pair_dot2's sum. */
#define MOTE_FCB_SHARED(j) \
  { \
    const uint32_t l = w[j]; \
    mote_accumulate(&a##j, (int32_t)(xa * (l & mask) + xb * ((l >> 8) & mask) + k) >> 16); \
  }
/* Each pair word rounded on its own: mote_pair_dot's sums. */
#define MOTE_FCB_SEPARATE(j) \
  { \
    const uint32_t l = w[j]; \
    mote_accumulate(&a##j, (int32_t)(xa * (l & mask) + ka) >> 16); \
    mote_accumulate(&a##j, (int32_t)(xb * ((l >> 8) & mask) + kb) >> 16); \
  }
#define MOTE_FCB_STORE(j) acc[j] = a##j;
#define MOTE_FCB_WORD(xs, at) ((const mote_fcb_word *)(const void *)((const char *)(xs) + (at)))

/* acc[j] += the block's sums over its groups, j < 16 (runs: how many share their rounding, then how many do
 * not); returns the words past the block. Each |acc| <= |bias| + accum_depth * 128 * (128 + |filter_offset|)
 * < 2^31 (checked at compile time). */
static const uint32_t *dot_block(const mote_fcb_word *xs, const uint32_t *w, const uint16_t *runs,
                                 const uint16_t **offsets, int32_t *acc) {
  uint32_t mask = 0x00FF00FFu;
#if defined(__GNUC__)
  __asm__("" : "+r"(mask)); /* kept in a register, not rebuilt in the loops */
#endif
  MOTE_FCB_ROWS(MOTE_FCB_LOAD)
  const uint16_t *at = *offsets;
  const uint16_t *shared_end = at + 2 * runs[0], *separate_end = shared_end + 2 * runs[1];
  for (; at != shared_end; at += 2, w += 16) {
    const mote_fcb_word *u = MOTE_FCB_WORD(xs, at[0]), *v = MOTE_FCB_WORD(xs, at[1]);
    const uint32_t xa = u->x, xb = v->x, k = u->k + v->k;
    MOTE_FCB_ROWS(MOTE_FCB_SHARED)
  }
  for (; at != separate_end; at += 2, w += 16) {
    const mote_fcb_word *u = MOTE_FCB_WORD(xs, at[0]), *v = MOTE_FCB_WORD(xs, at[1]);
    const uint32_t xa = u->x, xb = v->x, ka = u->k + 16384u, kb = v->k + 16384u;
    MOTE_FCB_ROWS(MOTE_FCB_SEPARATE)
  }
  MOTE_FCB_ROWS(MOTE_FCB_STORE)
  *offsets = at;
  return w;
}
#undef MOTE_FCB_LOAD
#undef MOTE_FCB_SHARED
#undef MOTE_FCB_SEPARATE
#undef MOTE_FCB_STORE
#undef MOTE_FCB_ROWS
#undef MOTE_FCB_WORD

mote_status mote_fully_connected_bytes_s8(const mote_fully_connected_bytes_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const int32_t n = p->accum_depth, m = p->out_depth;
  (void)scratch;
  if (n <= 0 || n % 4 || n > MOTE_FULLY_CONNECTED_BYTES_MAX_DEPTH || m % 16) return MOTE_ERROR;
  mote_fcb_word xs[MOTE_FULLY_CONNECTED_BYTES_MAX_DEPTH / 2]; /* on the stack: no static RAM */
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int8_t *out = output + b * m;
    for (int32_t i = 0; i < n / 2; ++i) {
      const uint32_t x0 = (uint32_t)(int32_t)x[2 * i], x1 = (uint32_t)(int32_t)x[2 * i + 1];
      xs[i].x = x0 * 65536u + x1;
      xs[i].k = 16384u - 128u * ((x0 + x1) * 65536u + x1);
    }
    const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
    const uint32_t *w = p->weights;
    const uint16_t *offsets = p->offsets;
    for (int32_t o = 0; o < m; o += 16) {
      int32_t acc[16];
      for (int32_t j = 0; j < 16; ++j) acc[j] = p->bias[o + j] + base;
      w = dot_block(xs, w, p->runs + 2 * (o / 16), &offsets, acc);
      for (int32_t j = 0; j < 16; ++j) out[o + j] = mote_conv_output(&s, acc[j], o + j);
    }
  }
  return MOTE_OK;
}

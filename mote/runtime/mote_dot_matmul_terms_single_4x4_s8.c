#include "mote_dot_matmul_terms_single_4x4_s8.h"

#include "mote_output_single.h"

/* Each pair by itself (mote_matmul_pair_dot), as the assembly takes them: the runs list no shared roundings. */
void mote_dot_matmul_terms_single_4x4_s8(const int32_t *x, const int32_t *weights, int32_t groups,
                                         const int32_t *runs, const int32_t *biases, int32_t quads,
                                         const mote_block_out *how, const int32_t *all_sums, int32_t blocks) {
  (void)runs;
  const int32_t *w0 = weights, *bias0 = biases, *sums0 = all_sums;
  for (int32_t b = 0; b < blocks; ++b, x += 8 * groups) {
    const int32_t *sums = sums0 + 4 * b;
    int8_t *out = how->out + b * 4 * how->m;
    const int32_t *stage = how->stage, *w = w0, *bias = bias0;
    for (int32_t q = quads; q > 0; --q, bias += 8, out += 4, stage += 4 * MOTE_OUTPUT_SINGLE_WORDS) {
      int32_t a[16];
      for (int32_t k = 0; k < 16; ++k) a[k] = bias[k % 4] + bias[4 + k % 4] * sums[k / 4];
      for (const int32_t *u = x, *end = x + 8 * groups; u != end; u += 4, w += 4) {
        for (int32_t k = 0; k < 16; ++k) mote_accumulate(&a[k], mote_matmul_pair_dot(u[k / 4], w[k % 4]));
      }
      for (int32_t k = 0; k < 16; ++k) {
        out[(k / 4) * how->m + k % 4] = mote_output_single(a[k], stage + MOTE_OUTPUT_SINGLE_WORDS * (k % 4), how->lo,
                                                           how->hi);
      }
    }
  }
}

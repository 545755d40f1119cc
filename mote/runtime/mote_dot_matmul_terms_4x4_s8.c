#include "mote_dot_matmul_terms_4x4_s8.h"

/* Each pair by itself (mote_matmul_pair_dot), as the assembly takes them: the runs list no shared roundings. */
void mote_dot_matmul_terms_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                  const int32_t *bias, int32_t quads, const mote_block_out *how,
                                  const int32_t sums[4]) {
  (void)runs;
  mote_block_out set = *how;
  for (; quads > 0; --quads, bias += 8, set.out += 4, set.stage += 4 * MOTE_OUTPUT_STAGE_WORDS) {
    int32_t a[16];
    for (int32_t k = 0; k < 16; ++k) a[k] = bias[k % 4] + bias[4 + k % 4] * sums[k / 4];
    for (const int32_t *u = x, *end = x + 8 * groups; u != end; u += 4, w += 4) {
      const int32_t u0 = u[0], u1 = u[1], u2 = u[2], u3 = u[3];
      const int32_t v0 = w[0], v1 = w[1], v2 = w[2], v3 = w[3];
      mote_accumulate(&a[0], mote_matmul_pair_dot(u0, v0)), mote_accumulate(&a[1], mote_matmul_pair_dot(u0, v1));
      mote_accumulate(&a[2], mote_matmul_pair_dot(u0, v2)), mote_accumulate(&a[3], mote_matmul_pair_dot(u0, v3));
      mote_accumulate(&a[4], mote_matmul_pair_dot(u1, v0)), mote_accumulate(&a[5], mote_matmul_pair_dot(u1, v1));
      mote_accumulate(&a[6], mote_matmul_pair_dot(u1, v2)), mote_accumulate(&a[7], mote_matmul_pair_dot(u1, v3));
      mote_accumulate(&a[8], mote_matmul_pair_dot(u2, v0)), mote_accumulate(&a[9], mote_matmul_pair_dot(u2, v1));
      mote_accumulate(&a[10], mote_matmul_pair_dot(u2, v2)), mote_accumulate(&a[11], mote_matmul_pair_dot(u2, v3));
      mote_accumulate(&a[12], mote_matmul_pair_dot(u3, v0)), mote_accumulate(&a[13], mote_matmul_pair_dot(u3, v1));
      mote_accumulate(&a[14], mote_matmul_pair_dot(u3, v2)), mote_accumulate(&a[15], mote_matmul_pair_dot(u3, v3));
    }
    int32_t acc[16];
    for (int32_t k = 0; k < 16; ++k) acc[k] = a[k];
    mote_block_out_4x4(&set, acc);
  }
}

#include "mote_dot_pairs_terms_4x4_s8.h"

void mote_dot_pairs_terms_4x4_s8(const int32_t *x, const int32_t *w, int32_t groups, const int32_t *runs,
                                 const int32_t *bias, int32_t quads, const mote_block_out *how,
                                 const int32_t terms[4]) {
  mote_block_out set = *how;
  for (; quads > 0; --quads, bias += 4, set.out += 4, set.stage += 4 * MOTE_OUTPUT_STAGE_WORDS) {
    int32_t acc[16];
    for (int32_t k = 0; k < 16; ++k) acc[k] = bias[k % 4] + terms[k / 4];
    for (const int32_t *g = x; g != x + 8 * groups; runs += 2) {
      for (const int32_t *stop = g + runs[0] / 4; g != stop; g += 8, w += 8) { /* sharing roundings */
        for (int32_t k = 0; k < 16; ++k) acc[k] += mote_pair_dot2(g[k / 4], w[k % 4], g[4 + k / 4], w[4 + k % 4]);
      }
      for (const int32_t *stop = g + runs[1] / 4; g != stop; g += 8, w += 8) {
        for (int32_t k = 0; k < 16; ++k) {
          acc[k] += mote_pair_dot(g[k / 4], w[k % 4]) + mote_pair_dot(g[4 + k / 4], w[4 + k % 4]);
        }
      }
    }
    mote_block_out_4x4(&set, acc);
  }
}

#include "mote_dot_matmul_single_4x4_s8.h"

#include "mote_output_single.h"

void mote_dot_matmul_single_4x4_s8(const int32_t *x, const int32_t *w, int32_t pairs, const int32_t *starts,
                                   const int32_t *terms, int32_t quads, const mote_block_out *how, int32_t blocks) {
  for (int32_t b = 0; b < blocks; ++b, x += 4 * pairs, terms += 4) {
    int8_t *out = how->out + b * 4 * how->m;
    const int32_t *v = w;
    for (int32_t q = 0; q < quads; ++q, out += 4, v += 4 * pairs) {
      uint32_t a[16]; /* modulo 2^32, as the assembly's registers: only the final sums are in int32's range */
      for (int32_t k = 0; k < 16; ++k) a[k] = (uint32_t)starts[4 * q + k % 4] + (uint32_t)terms[k / 4];
      for (int32_t k = 0; k < pairs; ++k) {
        for (int32_t n = 0; n < 16; ++n) a[n] += (uint32_t)mote_matmul_pair_dot(x[4 * k + n / 4], v[4 * k + n % 4]);
      }
      for (int32_t n = 0; n < 16; ++n) {
        out[(n / 4) * how->m + n % 4] = mote_output_single((int32_t)a[n], how->stage, how->lo, how->hi);
      }
    }
  }
}

#include "mote_dot_ring_4x4_s8.h"

void mote_dot_ring_s1_4x4_s8(int32_t *const *rows, int32_t fh, int32_t offset, int32_t width, int32_t pairs,
                             const int32_t *w, const int32_t *bias, const mote_block_out *how) {
  mote_dot_ring_4x4(1, rows, fh, offset, width, pairs, w, bias, how);
}

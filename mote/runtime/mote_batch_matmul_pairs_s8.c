#define MOTE_BMM_PAIRS_SINGLE 0
#define MOTE_BMM_PAIRS_FUNCTION batch_matmul_pairs
#include "mote_batch_matmul_pairs_body.h"

mote_status mote_batch_matmul_pairs_s8(const mote_batch_matmul_pairs_params *p, const int8_t *a, const int8_t *b,
                                       int8_t *output, mote_scratch scratch) {
  return batch_matmul_pairs(p, a, b, output, scratch);
}

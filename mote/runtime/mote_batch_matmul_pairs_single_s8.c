#define MOTE_BMM_PAIRS_SINGLE 1
#define MOTE_BMM_PAIRS_FUNCTION batch_matmul_pairs_single
#include "mote_batch_matmul_pairs_body.h"
#include "mote_batch_matmul_pairs_single_s8.h"

mote_status mote_batch_matmul_pairs_single_s8(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                              const int8_t *b, int8_t *output, mote_scratch scratch) {
  return batch_matmul_pairs_single(p, a, b, output, scratch);
}

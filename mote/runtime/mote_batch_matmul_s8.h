#ifndef MOTE_BATCH_MATMUL_S8_H
#define MOTE_BATCH_MATMUL_S8_H

#include "mote_batch_matmul.h"

/* int8_t BATCH_MATMUL, bit-exact with TFLite Micro (mote/ops/batch_matmul.py). Needs no scratch. */
mote_status mote_batch_matmul_s8(const mote_batch_matmul_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                                  mote_scratch scratch);

#endif

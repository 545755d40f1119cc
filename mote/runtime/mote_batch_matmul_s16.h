#ifndef MOTE_BATCH_MATMUL_S16_H
#define MOTE_BATCH_MATMUL_S16_H

#include "mote_batch_matmul.h"

/* int16_t BATCH_MATMUL, bit-exact with TFLite Micro (mote/ops/batch_matmul.py). Needs no scratch. */
mote_status mote_batch_matmul_s16(const mote_batch_matmul_params *p, const int16_t *a, const int16_t *b, int16_t *output,
                                  mote_scratch scratch);

#endif

#ifndef MOTE_BATCH_MATMUL_F32_H
#define MOTE_BATCH_MATMUL_F32_H

#include "mote_batch_matmul.h"

/* float BATCH_MATMUL, bit-exact with TFLite Micro (mote/ops/batch_matmul.py). Needs no scratch. */
mote_status mote_batch_matmul_f32(const mote_batch_matmul_params *p, const float *a, const float *b, float *output,
                                  mote_scratch scratch);

#endif

#ifndef MOTE_BATCH_MATMUL_PAIRS_SINGLE_S8_H
#define MOTE_BATCH_MATMUL_PAIRS_SINGLE_S8_H

#include "mote_batch_matmul_pairs_s8.h"

/* mote_batch_matmul_pairs_s8 with the outputs through one-multiply rows (mote_output_single.h), the stage's
 * constant in bias_constant; also for fewer than four rows and any columns (a decode step: B's bytes read as they
 * are, no packing). */
mote_status mote_batch_matmul_pairs_single_s8(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                              const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_BATCH_MATMUL_PAIRS_REQUANT_SHIFT_S8_H
#define MOTE_BATCH_MATMUL_PAIRS_REQUANT_SHIFT_S8_H

#include "mote_batch_matmul_pairs_s8.h"

/* mote_batch_matmul_pairs_s8 with RequantShift rows (mote.ops.matmul_rqs: the integer dialect's product of two
 * activations and its RequantShift per tensor or per column, one layer): output_stage holds a RequantShift row
 * per column (mote.ops.requant_stage), rest is mote_output_rest_any_s8, bias_constant holds no stage constant. */
mote_status mote_batch_matmul_pairs_requant_shift_s8(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                                     const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_BATCH_MATMUL_REQUANT_SHIFT_COLS_S8_H
#define MOTE_BATCH_MATMUL_REQUANT_SHIFT_COLS_S8_H

#include "mote_batch_matmul_blocked_s8.h"

/* mote_batch_matmul_requant_shift_s8 with a RequantShift row per output column (mote.ops.matmul_rqs: the
 * integer dialect's product of two activations and its RequantShift over the last axis, one layer): the same
 * operands, packing and sums; column c's outputs through row c of output_stage. Same scratch. */
mote_status mote_batch_matmul_requant_shift_cols_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                                    const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

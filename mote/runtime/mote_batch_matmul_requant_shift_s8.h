#ifndef MOTE_BATCH_MATMUL_REQUANT_SHIFT_S8_H
#define MOTE_BATCH_MATMUL_REQUANT_SHIFT_S8_H

#include "mote_batch_matmul_blocked_s8.h"

/* mote_batch_matmul_blocked_s8 with a RequantShift row as its output stage (mote.ops.matmul_rqs: the integer
 * dialect's product of two activations and its RequantShift per tensor, one layer): the same operands, packing
 * and sums; each output through mote_output_of_any. Same scratch. */
mote_status mote_batch_matmul_requant_shift_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                               const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

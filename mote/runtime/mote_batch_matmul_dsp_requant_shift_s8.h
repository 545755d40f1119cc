#ifndef MOTE_BATCH_MATMUL_DSP_REQUANT_SHIFT_S8_H
#define MOTE_BATCH_MATMUL_DSP_REQUANT_SHIFT_S8_H

#include "mote_batch_matmul_dsp_s8.h"

/* mote_batch_matmul_dsp_s8 with a RequantShift row as its output stage (mote.ops.matmul_rqs: the integer
 * dialect's product of two activations and its RequantShift per tensor, one layer): the same operands,
 * widening and sums (which wrap modulo 2^32 as Deeploy's do); each output through
 * mote_output_of_requant_shift. Same scratch. */
mote_status mote_batch_matmul_dsp_requant_shift_s8(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                                   const int8_t *b, int8_t *output, mote_scratch scratch);

#endif

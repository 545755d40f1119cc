#ifndef MOTE_REQUANT_SHIFT_S32_S8_H
#define MOTE_REQUANT_SHIFT_S32_S8_H

#include "mote_requant_shift_s8.h"

/* RequantShift of int32 accumulators (mote_requant_shift_s8.h for the formula). */
mote_status mote_requant_shift_s32_s8(const mote_requant_shift_params *p, const int32_t *input, int8_t *output,
                                      mote_scratch scratch);

#endif

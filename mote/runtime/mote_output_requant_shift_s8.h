#ifndef MOTE_OUTPUT_REQUANT_SHIFT_S8_H
#define MOTE_OUTPUT_REQUANT_SHIFT_S8_H

#include "mote_output_stage.h"

/* The output of an accumulator not below min_below for a RequantShift row (mote_output_stage.h): act_max above
 * max_above, else the row's formula, in 32 or 64 bits by its kind. */
int8_t mote_output_requant_shift_s8(int32_t acc, const mote_output_channel *s);

#endif

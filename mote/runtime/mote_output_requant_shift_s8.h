#ifndef MOTE_OUTPUT_REQUANT_SHIFT_S8_H
#define MOTE_OUTPUT_REQUANT_SHIFT_S8_H

#include "mote_output_stage.h"

/* The output of an accumulator not below min_below for a RequantShift row (mote_output_stage.h): act_max above
 * max_above, else the row's formula, in 32 or 64 bits by its kind. */
int8_t mote_output_requant_shift_s8(int32_t acc, const mote_output_channel *s);

/* mote_output_of for a kernel whose tables hold RequantShift rows (the integer dialect's fused layers): such a
 * row's formula one call away, with no `rest` function in between. */
static inline int8_t mote_output_of_requant_shift(int32_t acc, const mote_output_channel *s) {
  if (MOTE_LIKELY(acc > s->fast_after)) return mote_output_positive(acc, s);
  if (acc < s->min_below) return (int8_t)s->lo;
  if (s->row[1] >= MOTE_OUTPUT_REQUANT_SHIFT) return mote_output_requant_shift_s8(acc, s);
  return mote_output_rest(acc, s);
}

#endif

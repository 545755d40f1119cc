#ifndef MOTE_ARITH_S16_H
#define MOTE_ARITH_S16_H

#include "mote_arith_s32.h"

/* Quantized int16 ADD, SUB or MUL (operation, the codes of mote_arith_s32.h), broadcast as
 * mote_broadcast.h walks it (mote/ops/arith_s16.py has the arithmetic). */
typedef struct {
  int32_t rank;
  const int32_t *shape;
  const int32_t *a_strides, *b_strides;
  int32_t operation;
  int32_t a_offset, a_multiplier, a_shift; /* add/sub: a's rescale to the common scale */
  int32_t b_offset, b_multiplier, b_shift;
  int32_t out_offset, out_multiplier, out_shift;
  int32_t act_min, act_max;
} mote_arith_s16_params;

/* Bit-exact with TFLite Micro's int16 ADD, SUB and MUL. Needs no scratch. */
mote_status mote_arith_s16(const mote_arith_s16_params *p, const int16_t *a, const int16_t *b, int16_t *output,
                           mote_scratch scratch);

#endif

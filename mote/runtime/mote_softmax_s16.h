#ifndef MOTE_SOFTMAX_S16_H
#define MOTE_SOFTMAX_S16_H

#include "mote_types.h"

/* int16 SOFTMAX over the last axis [rows][depth] (mote/ops/softmax_s16.py): output scale 1/32768. */
typedef struct {
  int32_t rows, depth;
  int32_t multiplier, shift;      /* a difference from the row maximum onto the exp table's domain */
  const int16_t *exp_lut;         /* [513] exp on [-10, 0], interpolated on 7 bits */
  const int16_t *reciprocal_lut;  /* [513] 1 / (1 + x) on [0, 1] */
} mote_softmax_s16_params;

/* Bit-exact with TFLite Micro's SoftmaxInt16. Needs no scratch (the exps are kept in the output row). */
mote_status mote_softmax_s16(const mote_softmax_s16_params *p, const int16_t *input, int16_t *output,
                             mote_scratch scratch);

#endif

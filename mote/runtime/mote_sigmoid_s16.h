/* The parameters of the int16 LOGISTIC and TANH kernels (mote_logistic_s16, mote_tanh_s16). */
#ifndef MOTE_SIGMOID_S16_H
#define MOTE_SIGMOID_S16_H

#include "mote_types.h"

typedef struct {
  int32_t size;
  int32_t multiplier, shift;   /* v = (x * multiplier + round) >> shift: the input in table steps */
  const uint16_t *table;       /* [256] sigmoid(i / 24) in 0.16 fixed point (mote/ops/sigmoid_table.py) */
} mote_sigmoid_s16_params;

/* v rescaled as TFLite Micro rescales it. */
static inline int32_t mote_sigmoid_s16_input(const mote_sigmoid_s16_params *p, int32_t x) {
  const int32_t round = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
  return (x * p->multiplier + round) >> p->shift;
}

#endif

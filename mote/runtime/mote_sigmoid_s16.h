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

/* TFLite's int16 logistic of v (the input in table steps, mote_sigmoid_s16_input), Q0.15. */
static inline int16_t mote_logistic_s16_of(int32_t v, const uint16_t *table) {
  const uint32_t magnitude = (uint32_t)(v < 0 ? -v : v);
  const uint32_t step = magnitude >> 9;
  uint32_t result = 0x7FFFu << 10; /* past the table: saturated */
  if (step < 255) {
    const uint32_t low = table[step], high = table[step + 1];
    result = (low << 9) + (magnitude & 0x1FF) * (high - low);
  }
  result = v >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
  return (int16_t)(result >> 10);
}

/* TFLite's int16 tanh of v (the input in table steps, mote_sigmoid_s16_input), Q0.15. */
static inline int16_t mote_tanh_s16_of(int32_t v, const uint16_t *table) {
  const uint32_t magnitude = (uint32_t)(v < 0 ? -v : v);
  const uint32_t step = magnitude >> 8;
  int32_t result = (int32_t)(0xFFFFu << 8); /* past the table: saturated */
  if (step < 255) {
    const uint32_t low = table[step], high = table[step + 1];
    result = (int32_t)((low << 8) + (magnitude & 0xFF) * (high - low));
  }
  result = v >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
  return (int16_t)(result >> 8);
}

#endif

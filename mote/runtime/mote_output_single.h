/* A one-multiply output stage (mote/ops/output_single.py): per output channel a row of
 * MOTE_OUTPUT_SINGLE_WORDS int32 words, low, high, multiplier, 0. For an accumulator z (its channel's
 * constant already in the bias) the output is act_min below low, act_max from high on, else the low byte of
 * the high word of z * multiplier, which the compiler proved equal, offset included, to TFLite's two
 * roundings for every accumulator the layer can reach. */
#ifndef MOTE_OUTPUT_SINGLE_H
#define MOTE_OUTPUT_SINGLE_H

#include <stdint.h>

enum { MOTE_OUTPUT_SINGLE_WORDS = 4 };

static inline int8_t mote_output_single(int32_t z, const int32_t *row, int32_t lo, int32_t hi) {
  if (z < row[0]) return (int8_t)lo;
  if (z >= row[1]) return (int8_t)hi;
  const int64_t product = (int64_t)z * (int64_t)row[2];
  return (int8_t)(uint8_t)((uint64_t)product >> 32);
}

#endif

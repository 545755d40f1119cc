#ifndef MOTE_SOFTMAX_S8_H
#define MOTE_SOFTMAX_S8_H

#include "mote_types.h"

/* Softmax over the last axis of an int8 tensor [rows][depth]; the output is int8 with scale 1/256
 * and zero point -128. Entries whose difference d = x - max(row) is below diff_min output -128; the
 * others use exp(srdhm(d << input_left_shift, input_multiplier) as Q5.26) in gemmlowp fixed point. */
typedef struct {
  int32_t rows, depth;
  int32_t input_multiplier;  /* Q31, from beta * input scale */
  int32_t input_left_shift;  /* 1..31 */
  int32_t diff_min;          /* <= 0 */
} mote_softmax_params;

/* Bit-exact with TFLite Micro's int8 SOFTMAX wherever TFLite Micro runs (it aborts when a row's
 * probabilities are all below 2^-8, possible for depth >= 512; this kernel outputs -128 there).
 * Needs no scratch. */
mote_status mote_softmax_s8(const mote_softmax_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch);

#endif

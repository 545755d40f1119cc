#ifndef MOTE_LOG_SOFTMAX_S8_H
#define MOTE_LOG_SOFTMAX_S8_H

#include "mote_types.h"

/* Log-softmax over the last axis of an int8 tensor [rows][depth]; the output is int8 with scale 16/256
 * and zero point 127. With d = x - max(row): entries with d >= diff_min add exp(d as Q5.26) to the row's
 * sum; log(sum) as Q5.26 is subtracted from each d > adjusted, where adjusted (from log(sum), the reverse
 * multiplier and diff_min) keeps the difference inside int32; the others output -128. */
typedef struct {
  int32_t rows, depth;
  int32_t input_multiplier;    /* Q31, from the input scale */
  int32_t input_left_shift;    /* 1..30 */
  int32_t reverse_multiplier;  /* Q31: 2^(31 - input_left_shift) / input_multiplier */
  int32_t reverse_shift;       /* <= 0 */
  int32_t diff_min;            /* <= 0 */
} mote_log_softmax_s8_params;

/* Bit-exact with TFLite Micro's int8 LOG_SOFTMAX (reference_ops::LogSoftmaxQuantized). Needs no
 * scratch. */
mote_status mote_log_softmax_s8(const mote_log_softmax_s8_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif

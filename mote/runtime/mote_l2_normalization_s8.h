#ifndef MOTE_L2_NORMALIZATION_S8_H
#define MOTE_L2_NORMALIZATION_S8_H

#include "mote_types.h"

/* int8 L2_NORMALIZATION over the last axis [rows][depth]; the output has scale 1/128, zero point 0. */
typedef struct {
  int32_t rows, depth;
  int32_t input_zero_point;
} mote_l2_normalization_s8_params;

/* Bit-exact with TFLite Micro's int8 L2Normalization (mote/ops/l2_norm_int.py). Needs no scratch. */
mote_status mote_l2_normalization_s8(const mote_l2_normalization_s8_params *p, const int8_t *input,
                                     int8_t *output, mote_scratch scratch);

#endif

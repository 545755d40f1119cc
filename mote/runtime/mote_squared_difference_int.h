#ifndef MOTE_SQUARED_DIFFERENCE_INT_H
#define MOTE_SQUARED_DIFFERENCE_INT_H

#include "mote_element.h"

/* Integer SQUARED_DIFFERENCE (mote/ops/squared_difference_int.py), broadcast as mote_broadcast.h walks it. */
typedef struct {
  int32_t rank;
  const int32_t *shape;
  const int32_t *a_strides, *b_strides;
  int32_t type; /* 0 int8, 1 int16 (quantized), 2 int32 (raw, wrapping) */
  int32_t left_shift;
  int32_t a_offset, a_multiplier, a_shift;
  int32_t b_offset, b_multiplier, b_shift;
  int32_t out_offset, out_multiplier, out_shift;
  int32_t act_min, act_max;
} mote_squared_difference_int_params;

/* Bit-exact with TFLite Micro's int8, int16 and int32 SQUARED_DIFFERENCE. Needs no scratch. */
mote_status mote_squared_difference_int(const mote_squared_difference_int_params *p, const void *a, const void *b,
                                        void *output, mote_scratch scratch);

#endif

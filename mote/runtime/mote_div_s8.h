#ifndef MOTE_DIV_S8_H
#define MOTE_DIV_S8_H

#include "mote_element.h"

/* int8 DIV (mote/ops/div_int.py), broadcast as mote_broadcast.h walks it. */
typedef struct {
  int32_t rank;
  const int32_t *shape;
  const int32_t *a_strides, *b_strides;
  int32_t a_offset, b_offset, output_offset; /* -zero points of the inputs; the output's */
  int32_t multiplier, shift;                 /* s1 / (s2 s_out) */
  int32_t act_min, act_max;
} mote_div_s8_params;

/* Bit-exact with TFLite Micro's int8 DIV. Needs no scratch. */
mote_status mote_div_s8(const mote_div_s8_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch);

#endif

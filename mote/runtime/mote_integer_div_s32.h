#ifndef MOTE_INTEGER_DIV_S32_H
#define MOTE_INTEGER_DIV_S32_H

#include "mote_types.h"

typedef struct {
  int32_t groups;    /* denominators */
  int32_t inner;     /* consecutive numerators per denominator */
  int32_t delta_eta; /* Delta * eta */
  int32_t eta;
  int32_t eps;
} mote_integer_div_params;

/* Integer division (integer-dialect IntegerDiv): n = delta_eta * a, d = eta * b + eps, out =
 * int32((n + sign(n) * (d >> 1)) / d) in int64 (C's truncating division). A zero d: MOTE_ERROR. */
mote_status mote_integer_div_s32(const mote_integer_div_params *p, const int32_t *a, const int32_t *b,
                                 int32_t *output, mote_scratch scratch);

#endif

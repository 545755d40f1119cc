#ifndef MOTE_ARITH_S32_H
#define MOTE_ARITH_S32_H

#include "mote_element.h"

enum { MOTE_ARITH_ADD, MOTE_ARITH_SUB, MOTE_ARITH_MUL, MOTE_ARITH_DIV };

/* int32 ADD, SUB, MUL or DIV (operation) on raw values, broadcast as mote_broadcast.h walks it, wrapping on
 * overflow (DIV truncates toward zero), then clamped to [act_min, act_max]. */
typedef struct {
  int32_t rank;
  const int32_t *shape;
  const int32_t *a_strides, *b_strides;
  int32_t operation;
  int32_t act_min, act_max;
} mote_arith_s32_params;

/* A zero divisor fails (MOTE_ERROR). Needs no scratch. */
mote_status mote_arith_s32(const mote_arith_s32_params *p, const int32_t *a, const int32_t *b, int32_t *output,
                           mote_scratch scratch);

#endif

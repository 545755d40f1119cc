#ifndef MOTE_ADD_S32_H
#define MOTE_ADD_S32_H

#include "mote_broadcast.h"
#include "mote_types.h"

typedef struct {
  int32_t rank;              /* broadcast loops (mote_broadcast.h), at most MOTE_BCAST_MAX_DIMS */
  const int32_t *shape;
  const int32_t *a_strides;
  const int32_t *b_strides;
  int32_t a_bytes, b_bytes;  /* element size of each input: 1 (int8) or 4 (int32) */
  int32_t a_offset, b_offset; /* minus each input's zero point */
  int32_t arith;              /* 0: add, 1: sub (a - b), 2: mul */
} mote_add_s32_params;

/* Exact integer addition, subtraction or multiplication with broadcasting (integer-dialect ONNX Add, Sub, Mul):
 * out = (a + a_offset) op (b + b_offset), int32 (wrapping like two's complement int32). */
mote_status mote_add_s32(const mote_add_s32_params *p, const void *a, const void *b, int32_t *output,
                         mote_scratch scratch);

#endif

#ifndef MOTE_ILAYERNORM_S8_H
#define MOTE_ILAYERNORM_S8_H

#include "mote_types.h"

typedef struct {
  int32_t rows;
  int32_t length;       /* D: elements per row (the last axis), length * 255^2 fits int32 */
  int32_t input_offset; /* -input zero point */
  int32_t log2d;        /* the final right shift */
  int32_t narrow;       /* 1: every (v - mean) * weight fits int32 (the division runs in 32 bits) */
  const int32_t *weight; /* [length] */
  const int32_t *bias;   /* [length] */
} mote_ilayernorm_params;

/* Integer layer norm (integer-dialect iLayerNorm): v = x + input_offset, mean = sum(v) / D, std =
 * floor(sqrt(sum((v - mean)^2) / D + 1)), out = int8(((v - mean) * weight / std + bias) >> log2d), C's
 * truncating divisions, the cast wrapping. Needs no scratch. */
mote_status mote_ilayernorm_s8(const mote_ilayernorm_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch);

#endif

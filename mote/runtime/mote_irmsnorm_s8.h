#ifndef MOTE_IRMSNORM_S8_H
#define MOTE_IRMSNORM_S8_H

#include "mote_types.h"

typedef struct {
  int32_t rows;
  int32_t length;        /* D: elements per row (the normalized trailing axes), length * 255^2 fits int32 */
  int32_t input_offset;  /* -input zero point */
  int32_t log2d;         /* the final right shift, 0..31 */
  const int32_t *weight; /* [length]; |x + input_offset| * |weight| fits int32 */
} mote_irmsnorm_params;

/* Integer RMS norm (integer-dialect iRMSNorm): v = x + input_offset, std = floor(sqrt(sum(v^2) / D + 1)),
 * out = clamp((v * weight / std) >> log2d, -128, 127), C's truncating division. Needs no scratch. */
mote_status mote_irmsnorm_s8(const mote_irmsnorm_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif

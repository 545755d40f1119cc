#ifndef MOTE_DEQUANTIZE_S8_F32_H
#define MOTE_DEQUANTIZE_S8_F32_H

#include "mote_types.h"

/* int8 -> float32: out = scale * (x - zero_point). */
typedef struct {
  int32_t size;       /* elements */
  float scale;        /* > 0 */
  int32_t zero_point; /* in [-128, 127] */
} mote_dequantize_params;

/* Bit-exact with TFLite Micro's DEQUANTIZE from int8, which multiplies in double: that product is
 * exact, so the float product here rounds to the same value. Needs no scratch. */
mote_status mote_dequantize_s8_f32(const mote_dequantize_params *p, const int8_t *input, float *output,
                                   mote_scratch scratch);

#endif

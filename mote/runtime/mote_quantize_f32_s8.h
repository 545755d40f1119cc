#ifndef MOTE_QUANTIZE_F32_S8_H
#define MOTE_QUANTIZE_F32_S8_H

#include "mote_types.h"

/* float32 -> int8: out = clamp(round(x / scale) + zero_point, -128, 127), the division in float
 * and halves rounded away from zero. NaN gives -128. */
typedef struct {
  int32_t size;       /* elements */
  float scale;        /* > 0 */
  int32_t zero_point; /* in [-128, 127] */
} mote_quantize_params;

/* Bit-exact with TFLite Micro's AffineQuantize to int8 (for |x / scale| < 2^31, where TFLite's
 * float-to-int conversion is defined). Uses no libm. Needs no scratch. */
mote_status mote_quantize_f32_s8(const mote_quantize_params *p, const float *input, int8_t *output,
                                 mote_scratch scratch);

#endif

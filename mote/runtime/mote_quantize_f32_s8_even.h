#ifndef MOTE_QUANTIZE_F32_S8_EVEN_H
#define MOTE_QUANTIZE_F32_S8_EVEN_H

#include "mote_quantize_f32_s8.h"
#include "mote_types.h"

/* float32 -> int8 as ONNX's QuantizeLinear: out = clamp(round(x / scale) + zero_point, -128, 127), the
 * division in float and halves rounded to even (onnxruntime's rounding). NaN gives -128, as in
 * mote_quantize_f32_s8. Uses no libm. Needs no scratch. */
mote_status mote_quantize_f32_s8_even(const mote_quantize_params *p, const float *input, int8_t *output,
                                      mote_scratch scratch);

#endif

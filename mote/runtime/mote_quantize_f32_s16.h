#ifndef MOTE_QUANTIZE_F32_S16_H
#define MOTE_QUANTIZE_F32_S16_H

#include "mote_quantize_f32_s8.h"

/* float32 -> int16: out = clamp(round(x / scale) + zero_point, -32768, 32767), as mote_quantize_f32_s8
 * (the same parameters). Bit-exact with TFLite Micro's AffineQuantize to int16. Needs no scratch. */
mote_status mote_quantize_f32_s16(const mote_quantize_params *p, const float *input, int16_t *output,
                                  mote_scratch scratch);

#endif

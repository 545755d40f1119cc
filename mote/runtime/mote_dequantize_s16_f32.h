#ifndef MOTE_DEQUANTIZE_S16_F32_H
#define MOTE_DEQUANTIZE_S16_F32_H

#include "mote_dequantize_s8_f32.h"

/* int16 -> float32 as mote_dequantize_s8_f32 (the same parameters), bit-exact with TFLite Micro's
 * DEQUANTIZE. Needs no scratch. */
mote_status mote_dequantize_s16_f32(const mote_dequantize_params *p, const int16_t *input, float *output,
                                    mote_scratch scratch);

#endif

#ifndef MOTE_QUANTIZE_F32_S8_EVEN_VNNI_H
#define MOTE_QUANTIZE_F32_S8_EVEN_VNNI_H

#include "mote_quantize_f32_s8_even.h"
#include "mote_types.h"

/* mote_quantize_f32_s8_even, sixteen floats at a time with AVX-512 (chosen by mote only on x86-64 hosts
 * with AVX-512 VNNI, which have it): the same division, saturation and NaN rule, halves to even by the
 * conversion's round-to-nearest-even, so the same bytes. */
mote_status mote_quantize_f32_s8_even_vnni(const mote_quantize_params *p, const float *input, int8_t *output,
                                           mote_scratch scratch);

#endif

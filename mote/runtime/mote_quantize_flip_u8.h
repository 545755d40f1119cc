#ifndef MOTE_QUANTIZE_FLIP_U8_H
#define MOTE_QUANTIZE_FLIP_U8_H

#include "mote_types.h"

/* uint8 <-> int8 at the same scale, the zero points 128 apart (a model's uint8 boundary): each byte's top
 * bit flipped, x ^ 0x80, which is x - 128 (or x + 128) with no clamping. */
typedef struct {
  int32_t size; /* elements */
} mote_quantize_flip_params;

/* Bit-exact with TFLite Micro's QUANTIZE between int8 and uint8 at the same scale. The output may be the
 * input itself, or lie before it. Needs no scratch. */
mote_status mote_quantize_flip_u8(const mote_quantize_flip_params *p, const void *input, void *output,
                                  mote_scratch scratch);

#endif

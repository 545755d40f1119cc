#ifndef MOTE_DEQUANTIZE_TABLE_S8_F32_H
#define MOTE_DEQUANTIZE_TABLE_S8_F32_H

#include "mote_types.h"

/* int8 -> float32 by a table of the 256 results, computed at compile time as mote_dequantize_s8_f32 computes
 * them (scale * (x - zero_point)): one load an element, no conversion or float multiply (a core without an
 * FPU emulates both). */
typedef struct {
  int32_t size;        /* elements */
  const float *table;  /* [256], indexed by the input's byte */
} mote_dequantize_table_params;

/* Bit-exact with mote_dequantize_s8_f32. Needs no scratch. */
mote_status mote_dequantize_table_s8_f32(const mote_dequantize_table_params *p, const int8_t *input, float *output,
                                         mote_scratch scratch);

#endif

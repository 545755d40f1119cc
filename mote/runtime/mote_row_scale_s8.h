#ifndef MOTE_ROW_SCALE_S8_H
#define MOTE_ROW_SCALE_S8_H

#include "mote_types.h"

/* Each row of `depth` int8 values requantized by the multiplier its row-scale byte selects (mote/ops/row_scale.py):
 * out[r][i] = clamp(((x[r][i] - input_zero_point) * multipliers[b] + 2^(t - 1)) >> t + output_zero_point) with
 * t = 31 - shifts[b], b = (uint8_t)scale[r], in int64. */
typedef struct {
  int32_t rows, depth;
  int32_t input_zero_point, output_zero_point;
  const int32_t *multipliers, *shifts; /* [256]; shifts in -31..30 */
} mote_row_scale_s8_params;

/* Needs no scratch. */
mote_status mote_row_scale_s8(const mote_row_scale_s8_params *p, const int8_t *input, const int8_t *scale,
                              int8_t *output, mote_scratch scratch);

#endif

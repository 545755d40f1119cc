#ifndef MOTE_TABLE_MEAN_S8_H
#define MOTE_TABLE_MEAN_S8_H

#include "mote_types.h"

/* The mean over rows of `depth` int8 values of a function given by its table (mote/ops/table_mean.py):
 * out[r] = floor((sum_j table[(uint8_t)x[r][j]] + unit / 2) / unit) + output_zero_point, clamped to int8, with
 * unit = depth * 2^fraction; the sum in int64. */
typedef struct {
  int32_t rows, depth; /* 1 <= depth <= 32768 */
  const int32_t *table; /* [256] */
  int32_t fraction;     /* 0..16 */
  int32_t output_zero_point;
} mote_table_mean_s8_params;

/* Needs no scratch. */
mote_status mote_table_mean_s8(const mote_table_mean_s8_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch);

#endif

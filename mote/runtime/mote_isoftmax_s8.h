#ifndef MOTE_ISOFTMAX_S8_H
#define MOTE_ISOFTMAX_S8_H

#include "mote_types.h"

typedef struct {
  int32_t rows;
  int32_t length;            /* elements per row (the last axis) */
  uint32_t levels_minus_one; /* n_levels - 1 */
  int32_t output_offset;     /* -(n_levels / 2) */
  const uint32_t *table;     /* [256]: the exponential y for d = row max - x */
} mote_isoftmax_params;

/* Integer softmax over rows (integer-dialect iSoftmax): out = (y * (n_levels - 1)) / sum(y) + output_offset
 * in uint32 arithmetic, wrapped to int8. The compiler checks that a row's sum of y fits 32 bits and is not 0.
 * Needs no scratch. */
mote_status mote_isoftmax_s8(const mote_isoftmax_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif

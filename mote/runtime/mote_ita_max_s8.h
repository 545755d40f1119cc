#ifndef MOTE_ITA_MAX_S8_H
#define MOTE_ITA_MAX_S8_H

#include "mote_types.h"

typedef struct {
  int32_t rows;
  int32_t length;        /* elements per row (the last axis) */
  uint32_t numerator;    /* (n_levels - 1) * 256 */
  int32_t output_offset; /* -(n_levels / 2) */
} mote_ita_max_params;

/* ITA's softmax (integer-dialect ITAMax): shift = (max - x + 16) >> 5, inv = numerator / sum(256 >> shift),
 * out = (inv >> shift) + output_offset wrapped to int8. Needs no scratch. */
mote_status mote_ita_max_s8(const mote_ita_max_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch);

#endif

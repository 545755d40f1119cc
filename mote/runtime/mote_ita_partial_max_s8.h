#ifndef MOTE_ITA_PARTIAL_MAX_S8_H
#define MOTE_ITA_PARTIAL_MAX_S8_H

#include "mote_types.h"

typedef struct {
  int32_t rows;
  int32_t length;        /* elements per row (the last axis), a multiple of group_width */
  int32_t group_width;   /* elements per group of the running maximum */
  uint32_t numerator;    /* (n_levels / 2 - 1) * 256 */
  int32_t output_offset; /* -(n_levels / 2) */
} mote_ita_partial_max_params;

/* ITA's streaming softmax (integer-dialect ITAPartialMax): a running maximum and sum over groups of a row,
 * the sum shifted right when the maximum grows; then as mote_ita_max_s8. Needs no scratch. */
mote_status mote_ita_partial_max_s8(const mote_ita_partial_max_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch);

#endif

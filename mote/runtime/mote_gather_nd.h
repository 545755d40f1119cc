#ifndef MOTE_GATHER_ND_H
#define MOTE_GATHER_ND_H

#include "mote_types.h"

/* GATHER_ND: slice i of the output is the slice_size elements of params from position
 * sum_j indices[i][j] * counts[j]; a position outside params fails (MOTE_ERROR), as in TFLite Micro. */
typedef struct {
  int32_t slices, slice_size, flat_size;
  int32_t element_bytes;
  int32_t nd;              /* indices per slice, 1 .. 5 */
  const int32_t *counts;   /* [nd] elements per step of each indexed dimension */
} mote_gather_nd_params;

/* Needs no scratch. */
mote_status mote_gather_nd(const mote_gather_nd_params *p, const void *params, const int32_t *indices, void *output,
                           mote_scratch scratch);

#endif

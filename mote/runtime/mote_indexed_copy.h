#ifndef MOTE_INDEXED_COPY_H
#define MOTE_INDEXED_COPY_H

#include "mote_types.h"

/* Copies input elements to the output by a table planned at compile time (mote/ops/copy_plan.py): output
 * element i is input element positions[i], or the fill element where positions[i] is -1 (MIRROR_PAD, a
 * padded SPACE_TO_BATCH_ND: copies that are not affine). */
typedef struct {
  int32_t size;                /* output elements */
  const int32_t *positions;    /* [size] */
  int32_t element_bytes;       /* 1, 2, 4 or 8 */
  const uint8_t *fill;         /* [element_bytes] */
} mote_indexed_copy_params;

/* Needs no scratch. */
mote_status mote_indexed_copy(const mote_indexed_copy_params *p, const void *input, void *output,
                              mote_scratch scratch);

#endif

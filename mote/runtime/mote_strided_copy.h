#ifndef MOTE_STRIDED_COPY_H
#define MOTE_STRIDED_COPY_H

#include "mote_types.h"

#define MOTE_STRIDED_MAX_DIMS 6

/* Copies elements from affine positions of the input (TRANSPOSE, SLICE, STRIDED_SLICE, REVERSE_V2): the
 * output is walked in order as `rank` nested loops over `shape`, and its element at loop indices (i_0, ...)
 * is the input's element offset + sum(i_d * strides[d]) (strides may be negative). */
typedef struct {
  int32_t rank;             /* 1 .. MOTE_STRIDED_MAX_DIMS */
  const int32_t *shape;     /* [rank] loop extents, outermost first */
  const int32_t *strides;   /* [rank] input elements per loop step */
  int32_t offset;           /* the input element of output element 0 */
  int32_t element_bytes;    /* 1, 2, 4 or 8 */
} mote_strided_copy_params;

/* Needs no scratch. */
mote_status mote_strided_copy(const mote_strided_copy_params *p, const void *input, void *output,
                              mote_scratch scratch);

#endif

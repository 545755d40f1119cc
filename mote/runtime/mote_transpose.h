#ifndef MOTE_TRANSPOSE_H
#define MOTE_TRANSPOSE_H

#include "mote_types.h"

typedef struct {
  int32_t elem_bytes;                          /* 1 (int8) or 4 (int32) */
  int32_t in_dim0, in_dim1, in_dim2, in_dim3;  /* the input's shape */
  int32_t perm0, perm1, perm2, perm3;          /* output axis i is input axis perm<i> */
  int32_t before[4], after[4];                 /* padding around the output, per output axis */
  int32_t pad_value;                           /* for int8: the zero point */
} mote_transpose_params;

/* A 4-D transpose (layout change between the CPU and an accelerator), optionally into a padded
 * output (when the accelerator's first job needs its input padded and has no padding of its own). */
mote_status mote_transpose(const mote_transpose_params *p, const void *input, void *output, mote_scratch scratch);

#endif

#ifndef MOTE_RESIZE_NEAREST_H
#define MOTE_RESIZE_NEAREST_H

#include "mote_types.h"

/* RESIZE_NEAREST_NEIGHBOR of an NHWC tensor: output pixel (y, x) is input pixel (row_low[y], col_low[x]),
 * its channels copied as bytes. The tables come from mote/ops/resize.py. */
typedef struct {
  int32_t batches, in_h, in_w, channels, out_h, out_w;
  const int32_t *row_low; /* [out_h] */
  const int32_t *col_low; /* [out_w] */
  int32_t element_bytes;
} mote_resize_nearest_params;

/* Needs no scratch. */
mote_status mote_resize_nearest(const mote_resize_nearest_params *p, const void *input, void *output,
                                mote_scratch scratch);

#endif

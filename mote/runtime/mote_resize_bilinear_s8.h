#ifndef MOTE_RESIZE_BILINEAR_S8_H
#define MOTE_RESIZE_BILINEAR_S8_H

#include "mote_types.h"

/* int8 RESIZE_BILINEAR of an NHWC tensor in TFLite Micro's fixed point: row_weight[y] is the source row
 * with 10 fractional bits (col_weight likewise), row_low/high the rows it falls between. */
typedef struct {
  int32_t batches, in_h, in_w, channels, out_h, out_w;
  const int32_t *row_low, *col_low, *row_high, *col_high;
  const int32_t *row_weight, *col_weight;
} mote_resize_bilinear_s8_params;

/* Bit-exact with TFLite Micro's ResizeBilinearInteger. Needs no scratch. */
mote_status mote_resize_bilinear_s8(const mote_resize_bilinear_s8_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch);

#endif

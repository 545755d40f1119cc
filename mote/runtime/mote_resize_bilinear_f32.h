#ifndef MOTE_RESIZE_BILINEAR_F32_H
#define MOTE_RESIZE_BILINEAR_F32_H

#include "mote_types.h"

/* float32 RESIZE_BILINEAR of an NHWC tensor: output pixel (y, x) mixes input rows row_low[y], row_high[y]
 * and columns col_low[x], col_high[x] with the weights dy = row_weight[y], 1 - dy = row_complement[y] (and
 * likewise dx), in TFLite Micro's order; the tables come from mote/ops/resize.py. */
typedef struct {
  int32_t batches, in_h, in_w, channels, out_h, out_w;
  const int32_t *row_low, *col_low, *row_high, *col_high;
  const float *row_weight, *col_weight, *row_complement, *col_complement;
} mote_resize_bilinear_f32_params;

/* Bit-exact with TFLite Micro's float ResizeBilinear. Needs no scratch. */
mote_status mote_resize_bilinear_f32(const mote_resize_bilinear_f32_params *p, const float *input, float *output,
                                     mote_scratch scratch);

#endif

#ifndef MOTE_L2_NORMALIZATION_F32_H
#define MOTE_L2_NORMALIZATION_F32_H

#include "mote_rows_f32.h"

/* float32 L2_NORMALIZATION per row, in TFLite Micro's order: n = sqrt(sum of x_c * x_c left to right),
 * at least 1e-6; out_c = x_c / n. Needs no scratch. */
mote_status mote_l2_normalization_f32(const mote_rows_f32_params *p, const float *input, float *output,
                                      mote_scratch scratch);

#endif

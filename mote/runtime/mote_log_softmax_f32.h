#ifndef MOTE_LOG_SOFTMAX_F32_H
#define MOTE_LOG_SOFTMAX_F32_H

#include "mote_rows_f32.h"

/* float32 LOG_SOFTMAX per row, in TFLite Micro's order: m = max; s = sum of exp(x_c - m) left to right;
 * out_c = (x_c - m) - log(s), with mote_expf and mote_logf. Needs no scratch. */
mote_status mote_log_softmax_f32(const mote_rows_f32_params *p, const float *input, float *output,
                                 mote_scratch scratch);

#endif

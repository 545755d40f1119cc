#ifndef MOTE_LOGISTIC_F32_H
#define MOTE_LOGISTIC_F32_H

#include "mote_elementwise_f32.h"

/* float32 sigmoid as TFLite Micro's float Logistic: x > 16.619047 gives 1, x < -9 gives e^x, else
 * 1 / (1 + e^-x), with mote_expf. Needs no scratch. */
mote_status mote_logistic_f32(const mote_elementwise_f32_params *p, const float *input, float *output,
                              mote_scratch scratch);

#endif

#ifndef MOTE_LOG_F32_H
#define MOTE_LOG_F32_H

#include "mote_elementwise_f32.h"

/* float32 LOG, element by element: ln x (mote_logf). May run in place. Needs no scratch. */
mote_status mote_log_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif

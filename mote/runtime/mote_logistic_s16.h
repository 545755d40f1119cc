#ifndef MOTE_LOGISTIC_S16_H
#define MOTE_LOGISTIC_S16_H

#include "mote_sigmoid_s16.h"

/* int16 LOGISTIC, bit-exact with TFLite Micro (mote/ops/sigmoid_s16.py). Needs no scratch. */
mote_status mote_logistic_s16(const mote_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch);

#endif

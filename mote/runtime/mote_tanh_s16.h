#ifndef MOTE_TANH_S16_H
#define MOTE_TANH_S16_H

#include "mote_sigmoid_s16.h"

/* int16 TANH, bit-exact with TFLite Micro (mote/ops/sigmoid_s16.py). Needs no scratch. */
mote_status mote_tanh_s16(const mote_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                          mote_scratch scratch);

#endif

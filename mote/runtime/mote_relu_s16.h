#ifndef MOTE_RELU_S16_H
#define MOTE_RELU_S16_H

#include "mote_relu_s8.h"

/* int16 RELU, as mote_relu_s8 (the same parameters); bit-exact with TFLite Micro's int16 RELU. Needs no
 * scratch. */
mote_status mote_relu_s16(const mote_relu_params *p, const int16_t *input, int16_t *output, mote_scratch scratch);

#endif

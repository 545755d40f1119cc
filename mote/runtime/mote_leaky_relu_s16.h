#ifndef MOTE_LEAKY_RELU_S16_H
#define MOTE_LEAKY_RELU_S16_H

#include "mote_leaky_relu_params.h"

/* int16 LEAKY_RELU, bit-exact with TFLite Micro's QuantizeLeakyRelu. Needs no scratch. */
mote_status mote_leaky_relu_s16(const mote_leaky_relu_params *p, const int16_t *input, int16_t *output,
                                 mote_scratch scratch);

#endif

#ifndef MOTE_LEAKY_RELU_S8_H
#define MOTE_LEAKY_RELU_S8_H

#include "mote_leaky_relu_params.h"

/* int8 LEAKY_RELU, bit-exact with TFLite Micro's QuantizeLeakyRelu. Needs no scratch. */
mote_status mote_leaky_relu_s8(const mote_leaky_relu_params *p, const int8_t *input, int8_t *output,
                                 mote_scratch scratch);

#endif

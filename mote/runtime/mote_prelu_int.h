#ifndef MOTE_PRELU_INT_H
#define MOTE_PRELU_INT_H

#include "mote_prelu.h"

/* int8 or int16 (wide) PRELU with an int8 alpha, bit-exact with TFLite Micro. Needs no scratch. */
mote_status mote_prelu_int(const mote_prelu_params *p, const void *input, const int8_t *alpha, void *output,
                           mote_scratch scratch);

#endif

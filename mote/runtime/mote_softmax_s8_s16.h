#ifndef MOTE_SOFTMAX_S8_S16_H
#define MOTE_SOFTMAX_S8_S16_H

#include "mote_softmax_s8.h"

/* Softmax of an int8 tensor into int16 with scale 1/65536 and zero point -32768, as mote_softmax_s8
 * (the same parameters), bit-exact with TFLite Micro. Needs no scratch. */
mote_status mote_softmax_s8_s16(const mote_softmax_params *p, const int8_t *input, int16_t *output,
                                mote_scratch scratch);

#endif

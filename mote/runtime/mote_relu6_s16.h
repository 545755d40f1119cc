#ifndef MOTE_RELU6_S16_H
#define MOTE_RELU6_S16_H

#include "mote_relu6_s8.h"

/* int16 RELU6, as mote_relu6_s8 (the same parameters); bit-exact with TFLite Micro's int16 RELU6. Needs no
 * scratch. */
mote_status mote_relu6_s16(const mote_relu6_params *p, const int16_t *input, int16_t *output, mote_scratch scratch);

#endif

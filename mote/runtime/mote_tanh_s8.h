#ifndef MOTE_TANH_S8_H
#define MOTE_TANH_S8_H

#include "mote_logistic_s8.h"

/* tanh, int8 out with scale 1/128 and zero point 0; parameters as for mote_logistic_s8. Bit-exact
 * with TFLite Micro's int8 TANH. Needs no scratch. */
mote_status mote_tanh_s8(const mote_sigmoid_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif

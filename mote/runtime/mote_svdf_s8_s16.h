#ifndef MOTE_SVDF_S8_S16_H
#define MOTE_SVDF_S8_S16_H

#include "mote_svdf_s8_params.h"

/* int8 SVDF with an int16 state, bit-exact with TFLite Micro. Updates `state`; needs no scratch. */
mote_status mote_svdf_s8_s16(const mote_svdf_s8_params *p, const int8_t *input, int16_t *state, int8_t *output,
                             mote_scratch scratch);

#endif

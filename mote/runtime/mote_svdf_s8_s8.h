#ifndef MOTE_SVDF_S8_S8_H
#define MOTE_SVDF_S8_S8_H

#include "mote_svdf_s8_params.h"

/* int8 SVDF with an int8 state, bit-exact with TFLite Micro. Updates `state`; needs no scratch. */
mote_status mote_svdf_s8_s8(const mote_svdf_s8_params *p, const int8_t *input, int8_t *state, int8_t *output,
                            mote_scratch scratch);

#endif

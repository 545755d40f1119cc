#ifndef MOTE_REDUCE_MAX_S8_H
#define MOTE_REDUCE_MAX_S8_H

#include "mote_reduce.h"

/* Maximum of an int8 tensor over some axes (input and output share their quantization). Needs no scratch. */
mote_status mote_reduce_max_s8(const mote_reduce_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif

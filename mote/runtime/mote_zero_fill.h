#ifndef MOTE_ZERO_FILL_H
#define MOTE_ZERO_FILL_H

#include "mote_fill.h"

/* ZEROS_LIKE: every output byte 0 (raw zeros, whatever the quantization). Needs no scratch. */
mote_status mote_zero_fill(const mote_fill_params *p, void *output, mote_scratch scratch);

#endif

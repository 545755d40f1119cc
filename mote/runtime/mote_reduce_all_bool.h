#ifndef MOTE_REDUCE_ALL_BOOL_H
#define MOTE_REDUCE_ALL_BOOL_H

#include <stdbool.h>

#include "mote_reduce.h"

/* REDUCE_ALL: the logical AND of the reduced elements (true for none). Needs no scratch. */
mote_status mote_reduce_all_bool(const mote_reduce_params *p, const bool *input, bool *output, mote_scratch scratch);

#endif

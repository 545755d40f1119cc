#ifndef MOTE_LOGICAL_NOT_H
#define MOTE_LOGICAL_NOT_H

#include "mote_cast.h"

/* LOGICAL_NOT of a bool tensor (p->from and p->to are bool). Needs no scratch. */
mote_status mote_logical_not(const mote_cast_params *p, const bool *input, bool *output, mote_scratch scratch);

#endif

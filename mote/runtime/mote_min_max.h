#ifndef MOTE_MIN_MAX_H
#define MOTE_MIN_MAX_H

#include "mote_element.h"

/* MAXIMUM (p->operation 1) or MINIMUM (0) of two tensors of p->type, broadcast, on raw values, as
 * TFLite Micro: a > b ? a : b and a < b ? a : b. Needs no scratch. */
mote_status mote_min_max(const mote_element_binary_params *p, const void *a, const void *b, void *output,
                         mote_scratch scratch);

#endif

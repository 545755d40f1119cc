#ifndef MOTE_COMPARE_H
#define MOTE_COMPARE_H

#include "mote_element.h"

enum { MOTE_EQUAL, MOTE_NOT_EQUAL, MOTE_GREATER, MOTE_GREATER_EQUAL, MOTE_LESS, MOTE_LESS_EQUAL };

/* EQUAL ... LESS_EQUAL (p->operation) of two tensors of p->type, broadcast: a bool per output.
 * Needs no scratch. */
mote_status mote_compare(const mote_element_binary_params *p, const void *a, const void *b, bool *output,
                         mote_scratch scratch);

#endif

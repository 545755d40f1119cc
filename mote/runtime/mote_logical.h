#ifndef MOTE_LOGICAL_H
#define MOTE_LOGICAL_H

#include "mote_element.h"

/* LOGICAL_AND (p->operation 1) or LOGICAL_OR (0) of two bool tensors, broadcast. Needs no scratch. */
mote_status mote_logical(const mote_element_binary_params *p, const bool *a, const bool *b, bool *output,
                         mote_scratch scratch);

#endif

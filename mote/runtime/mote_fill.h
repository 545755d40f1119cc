#ifndef MOTE_FILL_H
#define MOTE_FILL_H

#include "mote_types.h"

typedef struct {
  int32_t count;         /* output elements */
  int32_t element_bytes; /* 1, 2, 4 or 8 */
} mote_fill_params;

/* FILL: every output element a copy of the element at `value`. Needs no scratch. */
mote_status mote_fill(const mote_fill_params *p, const void *value, void *output, mote_scratch scratch);

#endif

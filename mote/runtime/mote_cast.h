#ifndef MOTE_CAST_H
#define MOTE_CAST_H

#include "mote_element.h"

typedef struct {
  int32_t size; /* elements */
  int32_t from; /* a mote_element */
  int32_t to;   /* a mote_element */
} mote_cast_params;

/* CAST: each element converted with C's rules, except float to integer, which goes toward zero and
 * saturates at the target's limits, a NaN giving 0, as the tflite-micro interpreter does. Needs no
 * scratch. */
mote_status mote_cast(const mote_cast_params *p, const void *input, void *output, mote_scratch scratch);

#endif

#ifndef MOTE_COPY_H
#define MOTE_COPY_H

#include "mote_types.h"

typedef struct {
  int32_t bytes;
} mote_copy_params;

/* Moves a tensor's bytes unchanged (reshape, squeeze when not planned in place). */
mote_status mote_copy(const mote_copy_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_SELECT_H
#define MOTE_SELECT_H

#include "mote_types.h"

#define MOTE_SELECT_MAX_DIMS 6

/* SELECT_V2: out = condition ? x : y, the three broadcast to the output, walked in order as `rank` nested
 * loops over `shape`; each input advances by its strides (elements per loop step, 0 where broadcast). */
typedef struct {
  int32_t rank;                                   /* 1 .. MOTE_SELECT_MAX_DIMS */
  const int32_t *shape;                           /* [rank] the output */
  const int32_t *condition_strides, *x_strides, *y_strides; /* [rank] */
  int32_t element_bytes;                          /* of x, y and the output */
} mote_select_params;

/* Needs no scratch. */
mote_status mote_select(const mote_select_params *p, const bool *condition, const void *x, const void *y,
                        void *output, mote_scratch scratch);

#endif

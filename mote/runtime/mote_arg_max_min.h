#ifndef MOTE_ARG_MAX_MIN_H
#define MOTE_ARG_MAX_MIN_H

#include "mote_element.h"

/* ARG_MAX (largest 1) or ARG_MIN (0) along an axis: the input seen as [outer][extent][inner]; each output
 * is the first position along the axis of the largest (smallest) value, compared with > (<). */
typedef struct {
  int32_t outer, extent, inner;
  int32_t type;        /* the input's mote_element */
  int32_t output_type; /* MOTE_ELEMENT_S32 or MOTE_ELEMENT_S64 */
  int32_t largest;
} mote_arg_max_min_params;

/* Needs no scratch. */
mote_status mote_arg_max_min(const mote_arg_max_min_params *p, const void *input, void *output, mote_scratch scratch);

#endif

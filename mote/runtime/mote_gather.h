#ifndef MOTE_GATHER_H
#define MOTE_GATHER_H

#include "mote_element.h"

/* GATHER along an axis: the input seen as [outer][extent][inner]; for each outer row and each of the
 * `count` indices in turn, the inner block at that index is copied. */
typedef struct {
  int32_t outer, extent, inner; /* inner in elements */
  int32_t count;                /* indices */
  int32_t element_bytes;
  int32_t index_type;           /* MOTE_ELEMENT_S32 or MOTE_ELEMENT_S64 */
} mote_gather_params;

/* Returns MOTE_ERROR, with the output partly written, if an index is outside [0, extent).
 * Needs no scratch. */
mote_status mote_gather(const mote_gather_params *p, const void *input, const void *indices, void *output,
                        mote_scratch scratch);

#endif

#ifndef MOTE_SPLIT_H
#define MOTE_SPLIT_H

#include "mote_types.h"

/* Cuts a tensor along one axis into several (SPLIT, SPLIT_V), bytes copied as they are: for each of
 * the `outer` index values over the dimensions before the axis, output i in turn takes the next
 * chunks[i] bytes of the input. */
typedef struct {
  int32_t num_outputs;   /* >= 1 */
  int32_t outer;         /* >= 1 */
  const int32_t *chunks; /* [num_outputs] */
} mote_split_params;

/* outputs: [num_outputs] tensor pointers. Needs no scratch. */
mote_status mote_split(const mote_split_params *p, const void *input, void *const *outputs, mote_scratch scratch);

#endif

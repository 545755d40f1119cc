#ifndef MOTE_CONCATENATION_S8_H
#define MOTE_CONCATENATION_S8_H

#include "mote_types.h"

/* Joins int8 tensors along one axis (all quantized like the output, so bytes are copied as they are).
 * For each of the `outer` index values over the dimensions before the axis, input i in turn
 * contributes chunks[i] = shape_i[axis] * (product of the dimensions after the axis) bytes. */
typedef struct {
  int32_t num_inputs; /* >= 1 */
  int32_t outer;      /* >= 1 */
  const int32_t *chunks; /* [num_inputs] */
} mote_concatenation_params;

/* inputs: [num_inputs] tensor pointers. Bit-exact with TFLite Micro's int8 CONCATENATION.
 * Needs no scratch. */
mote_status mote_concatenation_s8(const mote_concatenation_params *p, const int8_t *const *inputs, int8_t *output,
                                  mote_scratch scratch);

#endif

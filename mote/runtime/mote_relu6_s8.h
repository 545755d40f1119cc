#ifndef MOTE_RELU6_S8_H
#define MOTE_RELU6_S8_H

#include "mote_types.h"

/* out = min(max(x, lower), upper): the input's quantized 0 and 6 (input and output quantization are
 * taken to be the same, as TFLite Micro does). */
typedef struct {
  int32_t size;         /* elements */
  int32_t lower, upper; /* -128 <= lower <= upper <= 127 */
} mote_relu6_params;

/* int8 RELU6; bit-exact with TFLite Micro's int8 RELU6. Needs no scratch. */
mote_status mote_relu6_s8(const mote_relu6_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif

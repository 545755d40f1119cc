#ifndef MOTE_CONV_OFFSET_S8_H
#define MOTE_CONV_OFFSET_S8_H

#include "mote_conv_s8.h"
#include "mote_types.h"

/* A 2-D convolution whose weights have a zero point: a layer of a legacy uint8 model, computed on
 * int8 values shifted by -128 (input, weights and zero points alike). */
typedef struct {
  mote_conv_params conv;                 /* as for mote_conv_s8, but the weights' zero point is -filter_offset */
  int32_t filter_offset;                 /* -weights zero point, in [-127, 128] */
} mote_conv_offset_params;

/* The general convolution, each tap (w + filter_offset) * (x + input_offset): bit-exact with TensorFlow
 * Lite's uint8 Conv on the unshifted values. Needs no scratch. */
mote_status mote_conv_offset_s8(const mote_conv_offset_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif

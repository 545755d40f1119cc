#ifndef MOTE_CONV_OFFSET_POINTWISE_S8_H
#define MOTE_CONV_OFFSET_POINTWISE_S8_H

#include "mote_conv_pointwise_s8.h"
#include "mote_types.h"

/* mote_conv_pointwise_s8 for a legacy uint8 layer whose weights have a zero point (terms = 1): its weights
 * split as v + s per output channel at compile time, as mote_conv_offset_blocked_s8's (v in [-127, 128]), each
 * accumulator starting from the bias plus s times the pixel's sum of taps. Bit-exact with mote_conv_offset_s8
 * on the same convolution; the same scratch. */
mote_status mote_conv_offset_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                          mote_scratch scratch);

#endif

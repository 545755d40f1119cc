#ifndef MOTE_CONV_BLOCKED_WIDE_S8_H
#define MOTE_CONV_BLOCKED_WIDE_S8_H

#include "mote_conv_offset_blocked_s8.h"
#include "mote_types.h"

/* An ungrouped int8 convolution whose weights reach -128, which the paired products of mote_conv_blocked_s8
 * do not take (TFLite's int8 weights never do; a legacy uint8 layer's with weights zero point 128 and an
 * ONNX model's may): the same computation as mote_conv_offset_blocked_s8, each weight w split by the compiler
 * as v + s with v in [-127, 128] and s one number per output channel, s times the window's sum of taps in the
 * accumulator's start. Params, scratch and result as mote_conv_offset_blocked_s8 has them. */
mote_status mote_conv_blocked_wide_s8(const mote_conv_offset_blocked_params *p, const int8_t *input, int8_t *output,
                                      mote_scratch scratch);

#endif

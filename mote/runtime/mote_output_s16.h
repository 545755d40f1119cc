/* The output stage of the 16x8 kernels (mote_conv_s16, mote_depthwise_conv_s16, mote_fully_connected_s16):
 * an int64 accumulator through TFLite's int64 requantization, or (acc64 = 0, an int32 bias) the low 32
 * bits through the int32 one, as the interpreter's int32 accumulator wraps; then the offset and clamp. */
#ifndef MOTE_OUTPUT_S16_H
#define MOTE_OUTPUT_S16_H

#include "mote_fixedpoint.h"

static inline int16_t mote_output_s16(int64_t acc, int32_t acc64, int32_t multiplier, int32_t shift,
                                      int32_t offset, int32_t act_min, int32_t act_max) {
  const int32_t scaled = acc64 ? mote_requantize64(acc, multiplier, shift)
                               : mote_requantize((int32_t)(uint32_t)(uint64_t)acc, multiplier, shift);
  return (int16_t)mote_clamp(mote_add_wrap(scaled, offset), act_min, act_max);
}

#endif

#ifndef MOTE_REQUANTIZE_S32_S8_H
#define MOTE_REQUANTIZE_S32_S8_H

#include "mote_types.h"

typedef struct {
  int32_t in_w;              /* the int32 input is [rows, in_w, channels] */
  int32_t out_h, out_w;      /* the output keeps positions (y * stride_h, x * stride_w) */
  int32_t stride_h, stride_w;
  int32_t channels;          /* the last (fastest) axis: multiplier and shift are per channel */
  int32_t output_offset, act_min, act_max;
  const int32_t *multiplier; /* [channels], Q31 */
  const int32_t *left_mul, *right_mul; /* [channels]: TFLite's shift as 2^max(shift, 0) and
                                 2^(31 - max(-shift, 0)) (see mote_conv_common.h) */
} mote_requantize_s32_params;

/* int32 accumulators (channels last) -> int8: requantize per channel, add the output zero point,
 * clamp; keeping every stride-th position. The CPU's half of an op an accelerator ran up to its
 * accumulator (at stride 1, when the accelerator has no stride). */
mote_status mote_requantize_s32_s8(const mote_requantize_s32_params *p, const int32_t *input, int8_t *output,
                                   mote_scratch scratch);

#endif

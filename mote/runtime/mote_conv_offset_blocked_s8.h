#ifndef MOTE_CONV_OFFSET_BLOCKED_S8_H
#define MOTE_CONV_OFFSET_BLOCKED_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution whose weights have a zero point (a layer of a legacy uint8 model, on
 * values shifted by -128), register-blocked as mote_conv_blocked_s8: four output pixels by four
 * output channels, two taps per multiply (mote_pair_dot). Each tap (x + input_offset) * (w +
 * filter_offset) splits into (x + input_offset) * w, the int8 products of an ordinary convolution,
 * and filter_offset * (x + input_offset), whose sum over a window, S, is the same for every output
 * channel: it is computed once per pixel while its window is gathered. A tap outside the input holds
 * the zero point, so it adds nothing to either sum, as TensorFlow Lite's uint8 kernels skip it.
 * The weights are stored negated, -w in [-127, 128], which keeps each pair's two products in
 * [-2^15, 2^15) for any int8 input and weight (mote_pair_dot); the kernel subtracts them. */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                          /* filter_h * filter_w * in_ch */
  int32_t pairs;                         /* tap pairs, even: taps rounded up to a multiple of 4, halved */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t filter_offset;                 /* -weights zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [ceil(out_ch / 4)][pairs][4]: -w0 - w1 * 2^16 for taps 2k, 2k + 1
                                            of a filter, zeros past taps and out_ch */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4]: the model's bias (or 0) + input_offset *
                                            (the sum of the channel's weights + taps * filter_offset);
                                            |bias| + taps * 128 * (128 + |filter_offset|) <= INT32_MAX */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
} mote_conv_offset_blocked_params;

/* Bit-exact with mote_conv_offset_s8 on the same convolution. Scratch: 16 * pairs bytes (the four
 * windows packed in pairs, [pair][pixel]). Returns MOTE_ERROR if the scratch is smaller. */
mote_status mote_conv_offset_blocked_s8(const mote_conv_offset_blocked_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_CONV_GROUPED_REQUANT_SHIFT_S8_H
#define MOTE_CONV_GROUPED_REQUANT_SHIFT_S8_H

#include "mote_types.h"

/* A grouped convolution (depthwise: one input channel a group) of the integer dialect and its RequantShift as
 * one layer (mote.ops.conv2d_rqs): out[n, y, x, oc] = RequantShift(bias[oc] + sum over in-bounds taps of
 * w[oc, i, j, c] * (x[..] + input_offset)), NHWC, weights OHWI (I = in_ch / groups). Channel by channel, each
 * output's sum stays in a register and goes through the channel's RequantShift row (mote_output_of_any). A
 * depthwise filter of up to 7x7 reads the windows that lie inside the input with no bounds tests, the input
 * offset folded into the bias (offset times the weights' sum); a 3x3 one with its nine weights in registers. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch, out_h, out_w, out_ch, filter_h, filter_w, filter_in_ch;
  int32_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t input_offset;             /* minus the input zero point */
  int32_t output_offset, act_min, act_max;
  const int8_t *weights;            /* [out_ch][filter_h][filter_w][filter_in_ch] */
  const int32_t *bias;              /* [out_ch] or NULL */
  const int32_t *output_stage;      /* [out_ch] rows (mote_output_stage.h): RequantShift rows */
} mote_conv_grouped_requant_shift_params;

/* Bit-exact with conv2d_s32 followed by requant_shift. Every |sum| < 2^31 (checked at compile time). Needs no
 * scratch. */
mote_status mote_conv_grouped_requant_shift_s8(const mote_conv_grouped_requant_shift_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch);

#endif

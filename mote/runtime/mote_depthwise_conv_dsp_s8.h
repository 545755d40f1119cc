#ifndef MOTE_DEPTHWISE_CONV_DSP_S8_H
#define MOTE_DEPTHWISE_CONV_DSP_S8_H

#include "mote_dsp.h"
#include "mote_types.h"

/* A 3x3 depthwise convolution (depth multiplier 1, dilation 1, any stride and padding, in_ch a multiple
 * of 4) for cores with the DSP extension (mote_dsp.h). For each output pixel the nine taps' input
 * pixels are found once (a tap outside the input reads a row of the input zero point in scratch, which
 * adds nothing after the folded bias); then four channels at a time keep their accumulators in
 * registers over the nine taps: one load and two SXTB16 widen a tap's four inputs, one LDRD fetches its
 * four int16 weights, and SMLABB / SMLATT accumulate (two pairs of channels per word). */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w;                  /* output [batches][out_h][out_w][in_ch] */
  int32_t stride_h, stride_w;            /* >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;               /* [in_ch / 4][9 taps][2 words]: int16 pairs (w_c0, w_c2),
                                            (w_c1, w_c3) of each group of four channels */
  const int32_t *folded_bias;            /* [in_ch]: bias (or 0) + input_offset * the sum of the 9 taps */
  const int32_t *stage;                  /* [in_ch][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_depthwise_conv_dsp_params;

/* The scratch it needs: a row of the input zero point. */
#define MOTE_DEPTHWISE_CONV_DSP_SCRATCH(in_ch) (in_ch)

/* Bit-exact with mote_depthwise_conv_s8 on the same convolution. Returns MOTE_ERROR if the scratch is too
 * small. */
mote_status mote_depthwise_conv_dsp_s8(const mote_depthwise_conv_dsp_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch);

#endif

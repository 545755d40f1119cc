#ifndef MOTE_CONV_DSP_S8_H
#define MOTE_CONV_DSP_S8_H

#include "mote_conv_common.h"
#include "mote_dsp.h"
#include "mote_types.h"

/* An ungrouped int8 2-D convolution for cores with dual 16-bit MACs (SMLAD: mote_dsp.h). Output pixels
 * go two at a time: each one's window (filter_h * filter_w * in_ch taps in HWC order, taps outside the
 * input holding the input zero point, which adds nothing after the folded bias, then zeros up to
 * `groups` * 4 taps) is widened once into scratch, the two windows interleaved group by group; then
 * every pair of output channels meets them in a 2x2 register block, eight SMLADs per group of four taps.
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                          /* filter_h * filter_w * in_ch */
  int32_t groups;                        /* ceil(taps / 4) */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;               /* [ceil(out_ch / 2)][groups][2 channels][2 words]: int16 pairs
                                            (w0, w2), (w1, w3) of each group of four taps; zero-padded */
  const int32_t *bias;                   /* [out_ch], never NULL: the model's bias (or 0) plus
                                            input_offset * the sum of the channel's weights */
  const int32_t *stage;                  /* [out_ch][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_conv_dsp_params;

/* The scratch it needs: two widened windows and one gathered int8 window, plus alignment. */
#define MOTE_CONV_DSP_SCRATCH(groups) (16 * (groups) + 4 * (groups) + 4)

/* Bit-exact with mote_conv_s8 on the same convolution. Returns MOTE_ERROR if the scratch is too small. */
mote_status mote_conv_dsp_s8(const mote_conv_dsp_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif

#ifndef MOTE_CONV_ARMV6M_S8_H
#define MOTE_CONV_ARMV6M_S8_H

#include "mote_armv6m.h"
#include "mote_conv_common.h"
#include "mote_dsp.h"
#include "mote_types.h"

/* An ungrouped int8 2-D convolution for Armv6-M (Cortex-M0+: mote_armv6m.h). Each output pixel's window
 * (filter_h * filter_w * in_ch taps in HWC order, taps outside the input holding the input zero point,
 * which adds nothing after the folded bias) is widened once into pair words in scratch, a segment of
 * contiguous input taps at a time (straight from the input where the segment lies inside it), then meets
 * the weights four output channels at a time, two products per multiply. Input tap (oy * stride_h - pad_top + fy * dilation_h,
 * ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t seg_taps;                      /* the taps of a segment: a filter row (filter_w * in_ch) when
                                            dilation_w is 1, else one tap's in_ch */
  int32_t seg_pairs;                     /* ceil(seg_taps / 2): a segment's pair words */
  int32_t pairs;                         /* the segments' pair words, rounded up to a multiple of
                                            MOTE_ARMV6M_UNROLL */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;               /* [ceil(out_ch / 4)][pairs][4 channels]: pair words w[2k + 1] +
                                            w[2k] * 2^16 of each channel's taps segment by segment, each
                                            segment zero-padded to seg_pairs words, weights in [-127, 127];
                                            zero-padded */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4], never NULL: the model's bias (or 0) plus
                                            input_offset * the sum of the channel's weights (plus the
                                            one-multiply constant of a channel with one); zero-padded */
  const int32_t *single;                 /* [out_ch][MOTE_ARMV6M_SINGLE]: the one-multiply stage (mote_armv6m.h) */
  const int32_t *stage;                  /* [out_ch][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_conv_armv6m_params;

/* The scratch it needs: one window's pair words and its int8 taps, plus alignment. */
#define MOTE_CONV_ARMV6M_SCRATCH(pairs) (4 * (pairs) + 2 * (pairs) + 4)

/* Bit-exact with mote_conv_s8 on the same convolution. Returns MOTE_ERROR if the scratch is too small. */
mote_status mote_conv_armv6m_s8(const mote_conv_armv6m_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif

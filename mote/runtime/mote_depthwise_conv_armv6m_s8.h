#ifndef MOTE_DEPTHWISE_CONV_ARMV6M_S8_H
#define MOTE_DEPTHWISE_CONV_ARMV6M_S8_H

#include "mote_armv6m.h"
#include "mote_dsp.h"
#include "mote_types.h"

/* An int8 depthwise 2-D convolution for Armv6-M (Cortex-M0+), any filter, stride, dilation, padding and
 * depth multiplier. One input channel at a time, a strip of input rows is copied into scratch as int32
 * values (the input zero point outside the input), column by column: word col * rows + r holds input
 * row (first row of the strip + r), column (col - pad_left). An output's window is then words at fixed
 * distances from one pointer (fx * dilation_w * rows + fy * dilation_h), so a 3x3 undilated window is
 * nine loads with immediate offsets, each product one MULS. Each strip serves every output row whose
 * window it holds; rows is MOTE_DEPTHWISE_ARMV6M_ROWS, or a window's height if more. */
#define MOTE_DEPTHWISE_ARMV6M_ROWS 13

typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w, depth_multiplier; /* output [batches][out_h][out_w][in_ch * depth_multiplier] */
  int32_t filter_h, filter_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t rows;                          /* the strip's rows: max(MOTE_DEPTHWISE_ARMV6M_ROWS, window height) */
  int32_t cols;                          /* the strip's columns: (out_w - 1) * stride_w + (filter_w - 1) *
                                            dilation_w + 1 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [out_ch][filter_w][filter_h], int8 values */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4], never NULL: the model's bias (or 0) plus
                                            input_offset * the sum of the channel's weights (plus the
                                            one-multiply constant of a channel with one) */
  const int32_t *single;                 /* [out_ch][MOTE_ARMV6M_SINGLE]: the one-multiply stage (mote_armv6m.h) */
  const int32_t *stage;                  /* [out_ch][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_depthwise_conv_armv6m_params;

/* The scratch it needs: the strip, plus alignment. */
#define MOTE_DEPTHWISE_CONV_ARMV6M_SCRATCH(rows, cols) (4 * (rows) * (cols) + 4)

/* Bit-exact with mote_depthwise_conv_s8. Returns MOTE_ERROR if the scratch is too small. */
mote_status mote_depthwise_conv_armv6m_s8(const mote_depthwise_conv_armv6m_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch);

#endif

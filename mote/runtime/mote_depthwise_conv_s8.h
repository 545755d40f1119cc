#ifndef MOTE_DEPTHWISE_CONV_S8_H
#define MOTE_DEPTHWISE_CONV_S8_H

#include "mote_types.h"

/* A depthwise convolution over NHWC int8: output channel oc = ic * depth_multiplier + m reads
 * input channel ic through filter column oc. Input tap (oy * stride_h - pad_top + fy * dilation_h,
 * ox * stride_w - pad_left + fx * dilation_w); taps outside the input are skipped. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w;                  /* output [batches][out_h][out_w][in_ch * depth_multiplier] */
  int32_t depth_multiplier;              /* >= 1 */
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w; /* all >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [filter_h][filter_w][in_ch * depth_multiplier], zero point 0 */
  const int32_t *bias;                   /* [in_ch * depth_multiplier], or NULL */
  const int32_t *multiplier, *shift;     /* [in_ch * depth_multiplier]: Q31 multiplier, shift (> 0: left) */
} mote_depthwise_conv_params;

/* The general depthwise convolution; bit-exact with TFLite Micro's int8 DepthwiseConvPerChannel.
 * Needs no scratch. */
mote_status mote_depthwise_conv_s8(const mote_depthwise_conv_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch);

#endif

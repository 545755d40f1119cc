#ifndef MOTE_CONV_S8_H
#define MOTE_CONV_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A 2-D convolution over NHWC int8, optionally grouped.
 * groups = in_ch / filter_in_ch (in_ch is a multiple of filter_in_ch); output channel oc belongs
 * to group oc / (out_ch / groups) and reads input channels [group * filter_in_ch, +filter_in_ch).
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w);
 * taps outside the input are skipped (zero padding after the input offset). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t filter_in_ch;                  /* groups = in_ch / filter_in_ch */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [out_ch][filter_h][filter_w][filter_in_ch], zero point 0 */
  const int32_t *bias;                   /* [out_ch], or NULL */
  const int32_t *multiplier, *shift;     /* [out_ch]: Q31 multiplier, shift (> 0: left) */
} mote_conv_params;

/* The general convolution (any filter, stride, dilation, padding, groups); bit-exact with TFLite
 * Micro's int8 ConvPerChannel. Needs no scratch. */
mote_status mote_conv_s8(const mote_conv_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif

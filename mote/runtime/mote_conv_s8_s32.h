#ifndef MOTE_CONV_S8_S32_H
#define MOTE_CONV_S8_S32_H

#include "mote_types.h"

typedef struct {
  int32_t batches, in_h, in_w, in_ch;  /* input NHWC int8 */
  int32_t out_h, out_w, out_ch;        /* output NHWC int32 */
  int32_t filter_h, filter_w, filter_in_ch; /* groups = in_ch / filter_in_ch */
  int32_t stride_h, stride_w, dilation_h, dilation_w;
  int32_t pad_top, pad_left;           /* explicit padding; taps in it contribute nothing */
  int32_t input_offset;                /* -input zero point */
  const int8_t *weights;               /* [out_ch][filter_h][filter_w][filter_in_ch] */
  const int32_t *bias;                 /* [out_ch] or NULL */
} mote_conv_s32_params;

/* Grouped int8 convolution to int32 accumulators, no requantization (integer-dialect ONNX):
 * out = bias + sum of w * (x + input_offset) over in-bounds taps. The compiler guarantees that no
 * accumulator leaves int32. */
mote_status mote_conv_s8_s32(const mote_conv_s32_params *p, const int8_t *input, int32_t *output,
                             mote_scratch scratch);

#endif

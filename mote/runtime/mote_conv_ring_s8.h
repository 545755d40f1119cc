#ifndef MOTE_CONV_RING_S8_H
#define MOTE_CONV_RING_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution with three filter columns, stride 1 or 2 across, dilation 1 and an
 * even number of input channels, for scalar cores. The input rows a row of outputs needs are packed
 * once each into a ring of filter_h rows in scratch, two channels to a word (mote_pair_dot) and
 * pair-major: word jc * width + q holds channels 2jc and 2jc + 1 of plane column q, which is input
 * column q - pad_left, or the zero point outside the input (a row outside the input is all zero
 * point). Every window is then read in place: four neighbouring output pixels by four output channels
 * in sixteen registers, where a filter row of the four pixels needs 6 (stride 1) or 9 (stride 2)
 * words of a channel pair, not 12. A padding tap holding the zero point contributes
 * w * (zp + input_offset) = 0, so every window is complete and starts from the folded bias.
 * Input tap (oy * stride_h - pad_top + fy, ox * stride_w - pad_left + fx). */
typedef struct {
  mote_conv_geometry geometry;          /* filter_w 3, stride_w 1 or 2, dilation 1, in_ch even */
  int32_t width;                         /* plane columns: >= pad_left + in_w and >= the last column the
                                            last block of four pixels reads, ((out_w + 3) / 4 * 4 - 1) *
                                            stride_w + 3 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [ceil(out_ch / 4)][filter_h][in_ch / 2][13]: a kind, then [3][4]:
                                            w0 + w1 * 2^16 for channels 2jc, 2jc + 1 of a tap, |w| <= 127,
                                            zeros past out_ch (mote_dot_ring_4x4_s8.h) */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4], never NULL: the model's bias (or 0)
                                            plus input_offset * the sum of the channel's weights;
                                            |bias| + taps * 2^14 <= INT32_MAX */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
} mote_conv_ring_params;

/* Bit-exact with mote_conv_s8 on the same convolution. Scratch: 8 * filter_h bytes for the rows'
 * pointers, then filter_h * (in_ch / 2) * width words for the ring. Returns MOTE_ERROR if the scratch
 * is smaller or the geometry is not one this kernel takes. */
mote_status mote_conv_ring_s8(const mote_conv_ring_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch);

#endif

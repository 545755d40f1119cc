#ifndef MOTE_CONV_VNNI_S8_H
#define MOTE_CONV_VNNI_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution for x86-64 hosts with AVX-512 VNNI (chosen by mote only on such a
 * host): the CPU's int8 dot-product instruction multiplies unsigned by signed bytes, so each image is
 * first copied into scratch as x + 128 (signs flipped), padded all round with the zero point and its
 * channels to whole 4-byte words; every window then lies inside that plane and is read in place, four
 * taps at a time broadcast from memory. The bias is folded with (input_offset - 128) * the sum of the
 * channel's weights, which makes a padding tap add nothing and every window complete. Output pixels
 * go four at a time along a row, sixteen or thirty-two output channels per pass.
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t in_ch4;                        /* in_ch rounded up to a multiple of 4 */
  int32_t taps4;                         /* filter_h * filter_w * in_ch4 */
  int32_t padded_h, padded_w;            /* the padded plane: every window of the output rows (four
                                            pixels at a time, the last ones too) inside it */
  int32_t out_ch16;                      /* out_ch rounded up to a multiple of 16 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [out_ch16 / 16][taps4 / 4][16][4]: channel (16 * block + lane),
                                            taps 4 * group .. + 3 (HWC over in_ch4 channels); zero for the
                                            channels past in_ch and out_ch */
  const int32_t *bias;                   /* [out_ch16]: the model's bias (or 0) plus (input_offset - 128) *
                                            the sum of the channel's weights; |bias| + taps * 255 * 128
                                            <= INT32_MAX */
  const int32_t *multiplier;             /* [out_ch]: Q31 multiplier */
  const int32_t *shift;                  /* [out_ch]: TFLite's shift, > 0 to the left, in [-31, 31] */
} mote_conv_vnni_params;

/* Bit-exact with mote_conv_s8 on the same convolution. Scratch: padded_h * padded_w * in_ch4 bytes.
 * Returns MOTE_ERROR if the scratch is smaller, or on a build without x86-64 AVX-512 VNNI support. */
mote_status mote_conv_vnni_s8(const mote_conv_vnni_params *p, const int8_t *input, int8_t *output,
                              mote_scratch scratch);

#endif

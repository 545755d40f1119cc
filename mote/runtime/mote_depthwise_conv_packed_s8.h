#ifndef MOTE_DEPTHWISE_CONV_PACKED_S8_H
#define MOTE_DEPTHWISE_CONV_PACKED_S8_H

#include "mote_types.h"

/* DEPTHWISE_CONV_2D with sub-byte weights (int4 or int2 values) kept packed in flash: what
 * mote_depthwise_conv_s8 computes (any filter, stride, dilation, padding, depth multiplier), from weights of
 * `bits` bits, 8 / bits to a byte.
 *
 * Output channel oc = ic * depth_multiplier + m's filter [filter_h][filter_w] (taps values) starts on a byte:
 * weights[oc * channel_bytes ...], channel_bytes = ceil(filter_h * filter_w * bits / 8), its values in order, the
 * first in a byte's lowest bits, each field the value in two's complement (mote.ir.subbyte's packing); the unused
 * fields of a channel's last byte are zero. (The int8 kernels' weights are [filter_h][filter_w][out_ch]: channels
 * last; here each channel's taps are together.) The kernel unpacks one channel's filter into scratch as int8,
 * then computes that channel at every output pixel. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w;                  /* output [batches][out_h][out_w][in_ch * depth_multiplier] */
  int32_t depth_multiplier;              /* >= 1 */
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w; /* all >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
  int32_t bits;                          /* 4 or 2 */
  int32_t channel_bytes;                 /* ceil(filter_h * filter_w * bits / 8) */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint8_t *weights;                /* [in_ch * depth_multiplier][channel_bytes], packed as above */
  const int32_t *bias;                   /* [in_ch * depth_multiplier], or NULL */
  const int32_t *multiplier, *left_mul, *right_mul; /* [in_ch * depth_multiplier]: Q31 multiplier and shift as
                                            powers of two (mote_output_stage.h) */
} mote_depthwise_conv_packed_params;

/* Bit-exact with mote_depthwise_conv_s8 on the unpacked weights (TFLite Micro's DepthwiseConvPerChannel with
 * int4 filters). Scratch: filter_h * filter_w bytes. Returns MOTE_ERROR for a bit width other than 4 or 2, or
 * too little scratch. */
mote_status mote_depthwise_conv_packed_s8(const mote_depthwise_conv_packed_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch);

#endif

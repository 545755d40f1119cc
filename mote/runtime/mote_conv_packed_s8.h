#ifndef MOTE_CONV_PACKED_S8_H
#define MOTE_CONV_PACKED_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* CONV_2D with sub-byte weights (int4 or int2 values) kept packed in flash: what mote_conv_s8 computes (any
 * filter, stride, dilation, padding, groups), from weights of `bits` bits, 8 / bits to a byte.
 *
 * Output channel oc's filter [filter_h][filter_w][filter_in_ch] (taps values) starts on a byte:
 * weights[oc * channel_bytes ...], channel_bytes = ceil(taps * bits / 8), its values in order, the first in a
 * byte's lowest bits, each field the value in two's complement (mote.ir.subbyte's packing); the unused fields of
 * a channel's last byte are zero. The kernel unpacks four output channels' filters (of one group) into scratch
 * as int8, then computes those channels at every output pixel, each input value loaded once for the four. */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t filter_in_ch;                  /* groups = in_ch / filter_in_ch */
  int32_t bits;                          /* 4 or 2 */
  int32_t channel_bytes;                 /* ceil(filter_h * filter_w * filter_in_ch * bits / 8) */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint8_t *weights;                /* [out_ch][channel_bytes], packed as above, zero point 0 */
  const int32_t *bias;                   /* [out_ch], or NULL */
  const int32_t *multiplier, *left_mul, *right_mul; /* [out channels]: Q31 multiplier and shift as
                                            powers of two (mote_output_stage.h) */
} mote_conv_packed_params;

/* Bit-exact with mote_conv_s8 on the unpacked weights (TFLite Micro's ConvPerChannel with int4 filters).
 * Scratch: 4 * filter_h * filter_w * filter_in_ch bytes. Returns MOTE_ERROR for a bit width other than 4 or 2,
 * groups that do not divide, or too little scratch. */
mote_status mote_conv_packed_s8(const mote_conv_packed_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif

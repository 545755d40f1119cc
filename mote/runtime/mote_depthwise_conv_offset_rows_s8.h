#ifndef MOTE_DEPTHWISE_CONV_OFFSET_ROWS_S8_H
#define MOTE_DEPTHWISE_CONV_OFFSET_ROWS_S8_H

#include "mote_depthwise_conv_rows_s8.h"
#include "mote_types.h"

/* A 3x3 depthwise convolution with depth multiplier 1 and dilation 1 whose weights have a zero point (a
 * layer of a legacy uint8 model, on values shifted by -128), as mote_depthwise_conv_rows_s8 computes one:
 * the nine weights of a channel live in registers as int32, so they may be w - weights zero point, in
 * [-255, 255], as TensorFlow Lite's uint8 kernel took them. A tap outside the input reads as the input
 * zero point, which contributes (zp + input_offset) * w = 0, as that kernel skipped it. */
typedef struct {
  mote_depthwise_conv_rows_params rows;  /* as for mote_depthwise_conv_rows_s8; its weights unused (NULL) and
                                            |folded_bias| + 9 * 128 * 255 <= INT32_MAX */
  const int16_t *weights;                /* [in_ch][9] in frame order: w + filter_offset, in [-255, 255] */
} mote_depthwise_conv_offset_rows_params;

/* Bit-exact with mote_depthwise_conv_offset_s8 on the same convolution. Needs no scratch. */
mote_status mote_depthwise_conv_offset_rows_s8(const mote_depthwise_conv_offset_rows_params *p, const int8_t *input,
                                               int8_t *output, mote_scratch scratch);

#endif

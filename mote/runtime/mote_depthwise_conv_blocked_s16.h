#ifndef MOTE_DEPTHWISE_CONV_BLOCKED_S16_H
#define MOTE_DEPTHWISE_CONV_BLOCKED_S16_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* A 16x8 depthwise convolution with depth multiplier 1, register-blocked for scalar cores: four output
 * pixels of a row by four channels per inner loop, sixteen int32 accumulators in registers, read in place
 * where the four windows lie inside the input across (one pixel at a time elsewhere, one output at a time
 * for channels past a set of four). Every partial sum fits int32 (checked at compile time); the int64 bias
 * is in the output stage (mote_stage_s16.h). Bit-exact with TFLite Micro's int16 DepthwiseConvPerChannel. */
typedef struct {
  mote_conv_geometry geometry;  /* out_ch = in_ch */
  int32_t act_min, act_max;
  const int8_t *weights;        /* [filter_h][filter_w][out_ch] */
  const int32_t *stage;         /* [out_ch][MOTE_STAGE_S16_ROW] (mote_stage_s16.h) */
} mote_depthwise_conv_blocked_s16_params;

/* Bit-exact with mote_depthwise_conv_s16 at depth multiplier 1. Needs no scratch. */
mote_status mote_depthwise_conv_blocked_s16(const mote_depthwise_conv_blocked_s16_params *p, const int16_t *input,
                                            int16_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_CONV_LANES_S16_H
#define MOTE_CONV_LANES_S16_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 16x8 convolution for hosts with SIMD: each output pixel's channels summed together, the
 * innermost loop eight output channels wide with int16 weights (a trip count gcc -O2 vectorizes, int16
 * by int16 into int32 lanes), the taps of a filter row that lie inside the input walked as one run
 * (no bounds test per tap). Every partial sum fits int32 (checked at compile time); the int64 bias is in
 * the output stage (mote_stage_s16.h). */
typedef struct {
  mote_conv_geometry geometry;  /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t lanes;                /* out_ch rounded up to a multiple of 8 */
  int32_t act_min, act_max;
  const int16_t *weights;       /* [filter_h][filter_w][in_ch][lanes], zeros past out_ch */
  const int32_t *stage;         /* [out_ch][MOTE_STAGE_S16_ROW] (mote_stage_s16.h) */
} mote_conv_lanes_s16_params;

/* Bit-exact with mote_conv_s16 on the same convolution. Scratch: 4 * lanes bytes; MOTE_ERROR if smaller. */
mote_status mote_conv_lanes_s16(const mote_conv_lanes_s16_params *p, const int16_t *input, int16_t *output,
                                mote_scratch scratch);

#endif

#ifndef MOTE_CONV_BLOCKED_S16_H
#define MOTE_CONV_BLOCKED_S16_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 16x8 convolution register-blocked for scalar cores: four output pixels by four output
 * channels per inner loop, sixteen int32 accumulators in registers, each loaded input and weight feeding
 * four products. The four pixels' windows (filter_h * filter_w * in_ch taps, HWC order, zero outside the
 * input: 16x8 zero points are 0, so a padding tap adds nothing) are gathered into the scratch buffer
 * interleaved, [tap][pixel], from the image or, where a filter row is short (plane_h > 0), from a zero-padded
 * copy of it, also in scratch; the weights come interleaved from compile time, [out_ch / 4][tap][channel].
 * Every partial sum fits int32 (checked at compile time); the int64 bias is in the output stage. */
typedef struct {
  mote_conv_geometry geometry;  /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                 /* filter_h * filter_w * in_ch */
  int32_t plane_h, plane_w;     /* the zero-padded image, every window inside it; 0, 0: none */
  int32_t act_min, act_max;
  const int8_t *weights;        /* [ceil(out_ch / 4)][taps][4], zeros past out_ch */
  const int32_t *stage;         /* [out_ch][MOTE_STAGE_S16_ROW] (mote_stage_s16.h) */
} mote_conv_blocked_s16_params;

/* Bit-exact with mote_conv_s16 on the same convolution. Scratch: 2 * (plane_h * plane_w * in_ch + 4 * taps)
 * bytes; MOTE_ERROR if smaller. */
mote_status mote_conv_blocked_s16(const mote_conv_blocked_s16_params *p, const int16_t *input, int16_t *output,
                                  mote_scratch scratch);

#endif

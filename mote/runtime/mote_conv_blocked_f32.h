#ifndef MOTE_CONV_BLOCKED_F32_H
#define MOTE_CONV_BLOCKED_F32_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped float32 convolution register-blocked for scalar cores: four output pixels by four output
 * channels per inner loop, sixteen accumulators in registers, each loaded input and weight feeding four
 * products. The four pixels' windows (filter_h * filter_w * in_ch taps, HWC order) are gathered into the
 * scratch buffer interleaved, [tap][pixel], 0.0f outside the input, from the image or, where a filter row is
 * short (plane_h > 0), from a zero-padded copy of it, also in scratch; the weights come interleaved from
 * compile time, [out_ch / 4][tap][channel]. Every output still sums its own products from 0 in TFLite
 * Micro's order (filter row, filter column, input channel), then adds its bias and clamps: a padding tap
 * adds 0 * w, +-0 for the finite weights this kernel is given, which leaves every sum as it was (a sum
 * started at +0 is never -0). */
typedef struct {
  mote_conv_geometry geometry;  /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                 /* filter_h * filter_w * in_ch */
  int32_t plane_h, plane_w;     /* the zero-padded image, every window inside it; 0, 0: none */
  float act_min, act_max;       /* the fused activation's range */
  const float *weights;         /* [ceil(out_ch / 4)][taps][4], finite, zeros past out_ch */
  const float *bias;            /* [out_ch] (zeros when the model has none) */
} mote_conv_blocked_f32_params;

/* Bit-exact with mote_conv_f32 on the same convolution. Scratch: 4 * (plane_h * plane_w * in_ch + 4 * taps)
 * bytes; MOTE_ERROR if smaller. */
mote_status mote_conv_blocked_f32(const mote_conv_blocked_f32_params *p, const float *input, float *output,
                                  mote_scratch scratch);

#endif

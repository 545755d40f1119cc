#ifndef MOTE_CONV_OFFSET_BLOCKED_S8_H
#define MOTE_CONV_OFFSET_BLOCKED_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution whose weights have a zero point (a layer of a legacy uint8 model, on
 * values shifted by -128), register-blocked as mote_conv_blocked_s8: four output pixels by four
 * output channels, two taps per multiply, four per rounding where the weights allow
 * (mote_dot_pairs_terms_4x4_s8). TensorFlow Lite's weight w - w_zp spans up to [-255, 255]; the
 * compiler splits it as v + s with v in [-127, 128] (s, the sum scale, one number for each output
 * channel), so each tap (x + input_offset) * (w - w_zp) is (x + input_offset) * v, the paired products
 * of an ordinary convolution, plus s * (x + input_offset), whose sum over a window is s times the
 * window's sum of taps, the same for every output channel: s times the sum of the window's raw taps
 * goes into the accumulator's start, the rest into the bias. A tap outside the input holds the zero point, so it adds nothing, as
 * TensorFlow Lite's uint8 kernels skip it. */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                          /* filter_h * filter_w * in_ch */
  int32_t pairs;                         /* tap pairs, even: taps rounded up to a multiple of 4, halved */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [ceil(out_ch / 4)][pairs][4]: v0 + v1 * 2^16 for taps 2k, 2k + 1
                                            of a filter, v in [-127, 128], zeros past taps and out_ch */
  const int32_t *bias;                   /* [ceil(out_ch / 4)][8]: four channels' biases, then their sum
                                            scales s = w - w_zp - v (|s| <= 255); a bias is the model's (or 0)
                                            + input_offset * (the sum of the channel's v + taps * s), and
                                            |bias| + taps * 128 * (128 + |s|) <= INT32_MAX */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
  const int32_t *runs;                   /* the runs of mote_dot_pairs_terms_4x4_s8 for each four output */
  const int32_t *run_start;              /* channels, [ceil(out_ch / 4)]: from runs[run_start[oc / 4]] */
  mote_output_rest_fn rest;              /* mote_output_rest_s8, or with RequantShift rows mote_output_rest_any_s8 */
} mote_conv_offset_blocked_params;

/* Sets of four output channels per call of mote_dot_pairs_terms_4x4_s8. */
#define MOTE_CONV_OFFSET_BLOCKED_BATCH 8

/* Bit-exact with mote_conv_offset_s8 on the same convolution. Scratch: 16 * pairs bytes (the four
 * windows packed in pairs, [pair][pixel]). Returns MOTE_ERROR if the scratch is smaller. */
mote_status mote_conv_offset_blocked_s8(const mote_conv_offset_blocked_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch);

#endif

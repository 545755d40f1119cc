#ifndef MOTE_CONV_BLOCKED_S8_H
#define MOTE_CONV_BLOCKED_S8_H

#include "mote_conv_common.h"
#include "mote_types.h"

/* An ungrouped 2-D convolution register-blocked for scalar cores: four output pixels by four output
 * channels per inner loop, sixteen accumulators in registers, two taps per multiply
 * (mote_pair_dot), so that each of the eight words it loads per tap pair feeds four pair products.
 * The four pixels' windows (filter_h * filter_w * in_ch taps, HWC order, taps outside the input
 * holding the input zero point) are gathered into the scratch buffer interleaved, [tap][pixel], then
 * packed in pairs, [pair][pixel]; the weights come packed and interleaved from compile time,
 * [out_ch / 4][pair][channel]. A padding tap holding the zero point contributes
 * w * (zp + input_offset) = 0, so every window is complete and starts from the folded bias.
 * Input tap (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  mote_conv_geometry geometry;          /* shapes, strides, dilation, padding (mote_conv_common.h) */
  int32_t taps;                          /* filter_h * filter_w * in_ch */
  int32_t pairs;                         /* tap pairs, even: taps rounded up to a multiple of 4, halved */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [ceil(out_ch / 4)][pairs][4]: w0 + w1 * 2^16 for taps 2k, 2k + 1
                                            of a filter, |w| <= 127, zeros past taps and out_ch */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4], never NULL: the model's bias (or 0)
                                            plus input_offset * the sum of the channel's weights;
                                            |bias| + taps * 2^14 <= INT32_MAX */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
  const int32_t *runs;                   /* the runs of mote_dot_pairs_4x4_s8 for each four output channels, */
  const int32_t *run_start;              /* [ceil(out_ch / 4)]: from runs[run_start[oc / 4]] */
  int32_t reverse;                       /* 1x1 at stride 1 only: from the last block of pixels to the first */
  mote_output_rest_fn rest;              /* mote_output_rest_s8, or with RequantShift rows mote_output_rest_any_s8 */
} mote_conv_blocked_params;

/* Sets of four output channels per call of mote_dot_pairs_4x4_s8: its start-up shared by several. */
#define MOTE_CONV_BLOCKED_BATCH 8

/* Bit-exact with mote_conv_s8 on the same convolution. Scratch: 16 * pairs bytes. Returns MOTE_ERROR if
 * the scratch is smaller. */
mote_status mote_conv_blocked_s8(const mote_conv_blocked_params *p, const int8_t *input, int8_t *output,
                                 mote_scratch scratch);

#endif

#ifndef MOTE_DEPTHWISE_CONV_PLANE_S8_H
#define MOTE_DEPTHWISE_CONV_PLANE_S8_H

#include "mote_output_stage.h"
#include "mote_types.h"

/* A channel group's walk over the plane and its outputs, read from the params once. */
typedef struct {
  int32_t fh, fw, row_step, dx, stride, lanes, pixels;
  int32_t group;                         /* channels interleaved in the plane: 1 or 4 */
  int32_t out_w, out_step;               /* outputs per row; bytes between an output pixel and the next */
  int32_t bias[4];                       /* the group's folded biases */
  mote_output_channel stage[4];          /* the group's output stages */
} mote_plane_walk;

/* A row of outputs of a channel group: x its first window in the plane, w the group's weights. */
typedef void (*mote_plane_row)(const mote_plane_walk *k, const int8_t *x, const int8_t *w, int8_t *out);

/* A depthwise convolution for scalar cores, any filter, stride, dilation and depth multiplier, one input
 * channel at a time: the channel is copied into a plane in scratch whose border is the input zero point,
 * so every window is complete (a padding tap gives w * (zp + input_offset) = 0) and starts from
 * folded_bias (bias + input_offset * the sum of its filter); the taps are raw int8 products. The outputs
 * go in blocks of `pixels` pixels along a row (four, or eight with one lane) by `lanes` output channels
 * (four, two or one, as the depth multiplier divides), their accumulators in registers; at stride 1 with
 * one lane each input byte of a filter row is loaded once for the block's windows. Each block is
 * requantized through the output-stage table. The fixed filters (3x3 at stride 1 by two lanes, 5x5 at
 * stride 2 by one, no dilation across, rows of eight outputs or more) take blocks of eight pixels whose
 * loops are all constant (mote_depthwise_conv_plane_fixed.h, a row function of their own named in the
 * params: mote_depthwise_conv_plane_3x3_s8 and its kin) on a plane of four interleaved channels
 * (plane_group 4; 1 for a 3x3 filter on a one-channel input), each filter row's input bytes loaded once. */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w;                  /* output [batches][out_h][out_w][in_ch * depth_multiplier] */
  int32_t depth_multiplier, lanes;       /* >= 1; lanes 4, 2 or 1, dividing depth_multiplier */
  int32_t pixels;                        /* 4, or 8 with lanes 1 or a fixed filter */
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w; /* all >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
  int32_t plane_h, plane_w;              /* the plane: every window of every block of pixels inside */
  int32_t plane_group;                   /* 1, or 4: four channels interleaved in the plane (the fixed filters) */
  int32_t zero_point;                    /* the input zero point: the plane's border */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;                 /* [in_ch][depth_multiplier / lanes][filter_h][filter_w][lanes] */
  const int32_t *folded_bias;            /* [out_ch]; |folded_bias| + taps * 2^14 <= INT32_MAX */
  const int32_t *output_stage;           /* [out_ch][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h) */
  mote_plane_row fixed_row;              /* a fixed filter's row function, or NULL: only what a model uses linked */
} mote_depthwise_conv_plane_params;

/* Bit-exact with TFLite Micro's int8 DepthwiseConvPerChannel. Scratch: plane_h * plane_w * plane_group bytes. */
mote_status mote_depthwise_conv_plane_s8(const mote_depthwise_conv_plane_params *p, const int8_t *input,
                                         int8_t *output, mote_scratch scratch);

#endif

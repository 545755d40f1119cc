#ifndef MOTE_CONV_POINTWISE_S8_H
#define MOTE_CONV_POINTWISE_S8_H

#include "mote_types.h"

/* A 1x1, stride-1, ungrouped convolution with few input channels for scalar cores: the blocked kernel's
 * inner loop (four pixels by four output channels, two taps per multiply, mote_dot_pairs_single_4x4_s8)
 * with the one-multiply output stage (mote_output_single.h), whose per-output cost is most of a layer's
 * when each output has only a few taps. A block's four pixels are packed in tap pairs [pair][pixel] in the
 * scratch; the weights come packed and interleaved from compile time, [out_ch / 4][pair][channel]. */
typedef struct {
  int32_t pixels;                        /* batches * height * width */
  int32_t in_ch, out_ch;
  int32_t pairs;                         /* tap pairs, even: in_ch rounded up to a multiple of 4, halved */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const int32_t *weights;                /* [ceil(out_ch / 4)][pairs][4]: w0 + w1 * 2^16 for input channels 2k,
                                            2k + 1 of a filter, |w| <= 127, zeros past in_ch and out_ch */
  const int32_t *bias;                   /* without terms, [ceil(out_ch / 4) * 4]: the folded bias plus the
                                            output stage's constant, |bias| + in_ch * 2^14 <= INT32_MAX; with
                                            terms, [ceil(out_ch / 4)][8]: four such biases, then their sum
                                            scales (mote_conv_offset_pointwise_s8) */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_SINGLE_WORDS] */
  const int32_t *runs;                   /* the runs of the inner loop for each four output channels, */
  const int32_t *run_start;              /* [ceil(out_ch / 4)]: from runs[run_start[oc / 4]] */
  int32_t reverse;                       /* from the last block of pixels to the first (an output larger than
                                            the input it overlaps) */
  int32_t terms;                         /* 1: each accumulator starts from its bias plus the pixel's sum of
                                            taps times the channel's sum scale (mote_dot_pairs_terms_single_4x4_s8):
                                            weights in [-127, 128] */
} mote_conv_pointwise_params;

/* Blocks of four pixels per call of the inner loop (its start-up shared by them). */
#define MOTE_CONV_POINTWISE_CHUNK 4

/* Bit-exact with mote_conv_s8 on the same convolution. Scratch: MOTE_CONV_POINTWISE_CHUNK * (16 * pairs + 16)
 * + 4 * out_ch bytes (the packed pixels of a chunk of blocks, the outputs of their last set of fewer than four
 * channels, a short block's outputs). Returns MOTE_ERROR if the scratch is smaller. */
mote_status mote_conv_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch);

#endif

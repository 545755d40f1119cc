#ifndef MOTE_CONV_PACKED_RING_S8_H
#define MOTE_CONV_PACKED_RING_S8_H

#include "mote_conv_common.h"
#include "mote_dot_ring_4x4_s8.h"
#include "mote_types.h"

/* mote_conv_ring_s8's convolution (ungrouped, three filter columns, stride 1 or 2 across, no dilation, even
 * in_ch) with sub-byte weights (int4 or int2 values) kept packed in flash. For each block of four output
 * channels the kernel unpacks the block's filters once into scratch as mote_conv_ring_s8's pair words (its
 * [filter_h][in_ch / 2][13] layout: a kind, then [3][4] words w0 + w1 * 2^16), then runs that kernel's ring
 * and inner loop (mote_dot_ring_4x4_s8.h) over the whole image for those four channels.
 *
 * Packed weights: per block of four channels, filter row fy, channel pair jc, filter column fx, channel q of
 * the block, the two values of channels 2jc and 2jc + 1 (in that order), every value `bits` bits in two's
 * complement, the first in a byte's lowest bits (mote.ir.subbyte's packing); 24 * filter_h * (in_ch / 2)
 * values a block, zeros for the channels past out_ch. */
/* The ring's inner loop for the layer's stride across (mote_dot_ring_4x4_s8.h). */
typedef void (*mote_dot_ring_fn)(int32_t *const *rows, int32_t fh, int32_t offset, int32_t width, int32_t pairs,
                                 const int32_t *w, const int32_t *bias, const mote_block_out *how);

typedef struct {
  mote_conv_geometry geometry;          /* filter_w 3, stride_w 1 or 2, dilation 1, in_ch even, no groups */
  int32_t width;                         /* plane columns, as mote_conv_ring_params' */
  int32_t bits;                          /* 4 or 2 */
  int32_t input_offset;                  /* -input zero point, in [-127, 128] */
  int32_t output_offset;                 /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
  const uint8_t *weights;                /* packed as above */
  const uint8_t *kinds;                  /* [ceil(out_ch / 4)][ceil(filter_h * in_ch / 8)]: each step's kind (0, 1 or
                                            2; steps [fy][pair]) in two bits, four a byte, the first lowest */
  const int32_t *bias;                   /* [ceil(out_ch / 4) * 4]: as mote_conv_ring_params' */
  const int32_t *output_stage;           /* [ceil(out_ch / 4) * 4][MOTE_OUTPUT_STAGE_WORDS] */
  mote_dot_ring_fn dot;                  /* mote_dot_ring_s1_4x4_s8 at stride 1 across, mote_dot_ring_s2_4x4_s8 at
                                            2: the project carries only the one it names */
} mote_conv_packed_ring_params;

/* Bit-exact with mote_conv_s8 on the unpacked weights. Scratch: mote_conv_ring_s8's (8 * filter_h bytes, then
 * filter_h * (in_ch / 2) * width words), then filter_h * (in_ch / 2) * 13 words for a block's filters.
 * Returns MOTE_ERROR for a bit width other than 4 or 2, a geometry the ring does not take, or too little
 * scratch. */
mote_status mote_conv_packed_ring_s8(const mote_conv_packed_ring_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch);

#endif

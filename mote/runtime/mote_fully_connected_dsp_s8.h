#ifndef MOTE_FULLY_CONNECTED_DSP_S8_H
#define MOTE_FULLY_CONNECTED_DSP_S8_H

#include "mote_dsp.h"
#include "mote_types.h"

/* An int8 fully connected layer for cores with dual 16-bit MACs (SMLAD: mote_dsp.h): each input row is
 * widened once into scratch, then meets the weights four output rows at a time (a 1x4 register block,
 * eight SMLADs per group of four inputs). output[b][o] = requantize(bias[o] + sum_d weights[o][d] *
 * input[b][d]), the weights with any filter offset added at compile time. */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t groups;                    /* ceil(accum_depth / 4) */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;           /* [ceil(out_depth / 4)][groups][4 rows][2 words]: int16 pairs (w0, w2),
                                        (w1, w3) of each group of four inputs; zero-padded */
  const int32_t *bias;               /* [out_depth]: as mote_fully_connected_s8's */
  const int32_t *stage;              /* [out_depth][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_fully_connected_dsp_params;

/* The scratch it needs: one widened input row, plus alignment. */
#define MOTE_FULLY_CONNECTED_DSP_SCRATCH(groups) (8 * (groups) + 8)

/* Bit-exact with mote_fully_connected_s8. Returns MOTE_ERROR if the scratch is too small. */
mote_status mote_fully_connected_dsp_s8(const mote_fully_connected_dsp_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch);

#endif

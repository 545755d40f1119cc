#ifndef MOTE_FULLY_CONNECTED_ARMV6M_S8_H
#define MOTE_FULLY_CONNECTED_ARMV6M_S8_H

#include "mote_armv6m.h"
#include "mote_dsp.h"
#include "mote_types.h"

/* An int8 fully connected layer for Armv6-M (Cortex-M0+: mote_armv6m.h): each input row is widened once
 * into pair words in scratch, then meets the weights four output rows at a time, two products per
 * multiply. output[b][o] = requantize(bias[o] + sum_d weights[o][d] * input[b][d]), the weights with any
 * filter offset added at compile time. */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t pairs;                     /* ceil(accum_depth / 2) rounded up to a multiple of MOTE_ARMV6M_UNROLL */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const uint32_t *weights;           /* [ceil(out_depth / 4)][pairs][4 rows]: pair words w[2k + 1] + w[2k] *
                                        2^16, weights in [-127, 127]; zero-padded */
  const int32_t *bias;               /* [ceil(out_depth / 4) * 4]: as mote_fully_connected_s8's, plus the
                                        one-multiply constant of a row that has one; zero-padded */
  const int32_t *single;             /* [out_depth][MOTE_ARMV6M_SINGLE]: the one-multiply stage (mote_armv6m.h) */
  const int32_t *stage;              /* [out_depth][MOTE_DSP_STAGE]: the requantization (mote_dsp.h) */
} mote_fully_connected_armv6m_params;

/* The scratch it needs: one input row's pair words, plus alignment. */
#define MOTE_FULLY_CONNECTED_ARMV6M_SCRATCH(pairs) (4 * (pairs) + 4)

/* Bit-exact with mote_fully_connected_s8. Returns MOTE_ERROR if the scratch is too small. */
mote_status mote_fully_connected_armv6m_s8(const mote_fully_connected_armv6m_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_FULLY_CONNECTED_F32_H
#define MOTE_FULLY_CONNECTED_F32_H

#include "mote_types.h"

/* output[b][o] = clamp(sum_d input[b][d] * weights[d][o] + bias[o], act_min, act_max), each sum taken
 * from 0 in the order d = 0, 1, ... as TFLite Micro's float FullyConnected takes it, so the bits agree. */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  float act_min, act_max;                  /* the fused activation's range */
  const float *weights;                    /* [accum_depth][out_depth]: the model's [out][in], transposed */
  const float *bias;                       /* [out_depth] (zeros when the model has none) */
} mote_fully_connected_f32_params;

/* Eight outputs at a time in registers (MOTE_F32_BLOCK), reading the transposed weights along their
 * rows: the loop over outputs vectorizes and every output still sums its products in TFLite's order.
 * Needs no scratch; the output must not overlap the input. */
mote_status mote_fully_connected_f32(const mote_fully_connected_f32_params *p, const float *input, float *output,
                                     mote_scratch scratch);

#endif

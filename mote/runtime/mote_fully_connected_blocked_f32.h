#ifndef MOTE_FULLY_CONNECTED_BLOCKED_F32_H
#define MOTE_FULLY_CONNECTED_BLOCKED_F32_H

#include "mote_types.h"

/* A float32 fully connected layer register-blocked for scalar cores: eight output rows per inner loop (the
 * last four alone), their accumulators in registers, each loaded input feeding eight products. The weights
 * come interleaved from compile time: the rows, rounded up to a multiple of four with zero rows, in blocks of
 * eight, [accum_depth][8], and a last block of four, [accum_depth][4]. Each output still sums its products
 * from 0 in the order d = 0, 1, ..., then adds its bias and clamps, as TFLite Micro's float FullyConnected. */
typedef struct {
  int32_t batches, accum_depth, out_depth;
  float act_min, act_max;  /* the fused activation's range */
  const float *weights;    /* the blocks above, each block's rows innermost */
  const float *bias;       /* [out_depth] (zeros when the model has none) */
} mote_fully_connected_blocked_f32_params;

/* Bit-exact with mote_fully_connected_f32 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_blocked_f32(const mote_fully_connected_blocked_f32_params *p, const float *input,
                                             float *output, mote_scratch scratch);

#endif

#ifndef MOTE_SVDF_F32_H
#define MOTE_SVDF_F32_H

#include "mote_types.h"

typedef struct {
  int32_t batches, input_size, filters, memory, rank; /* units = filters / rank */
  int32_t activation;                                 /* 0 none, 1 fmax(0, x), 2 fmax(act_min, fmin(x, act_max)) */
  float act_min, act_max;
  const float *weights_feature; /* [filters][input_size] */
  const float *weights_time;    /* [filters][memory] */
  const float *bias;            /* [units] */
} mote_svdf_f32_params;

/* float32 SVDF, bit-exact with TFLite Micro's reference order (mote/ops/svdf.py). Updates `state`; needs
 * no scratch. */
mote_status mote_svdf_f32(const mote_svdf_f32_params *p, const float *input, float *state, float *output,
                          mote_scratch scratch);

#endif

/* The parameters of the int8 SVDF kernels (mote_svdf_s8_s8, mote_svdf_s8_s16: the state's dtype). */
#ifndef MOTE_SVDF_S8_PARAMS_H
#define MOTE_SVDF_S8_PARAMS_H

#include "mote_types.h"

typedef struct {
  int32_t batches, input_size, filters, memory, rank; /* units = filters / rank */
  int32_t input_zero_point, state_zero_point, output_zero_point;
  int32_t feature_multiplier, feature_shift; /* s_in * s_feature / s_state */
  int32_t time_multiplier, time_shift;       /* s_state * s_time / s_out */
  int32_t state_min, state_max;              /* the state dtype's range */
  const int8_t *weights_feature;             /* [filters][input_size] */
  const void *weights_time;                  /* [filters][memory], the state's dtype */
  const int32_t *bias;                       /* [units] */
} mote_svdf_s8_params;

#endif

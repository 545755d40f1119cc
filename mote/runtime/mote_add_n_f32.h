#ifndef MOTE_ADD_N_F32_H
#define MOTE_ADD_N_F32_H

#include "mote_types.h"

typedef struct {
  int32_t count; /* inputs */
  int32_t size;  /* elements each */
} mote_add_n_f32_params;

/* float32 ADD_N: each sum from 0, the inputs added in order, as TFLite Micro. Needs no scratch. */
mote_status mote_add_n_f32(const mote_add_n_f32_params *p, const float *const *inputs, float *output,
                           mote_scratch scratch);

#endif

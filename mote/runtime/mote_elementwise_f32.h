/* The parameters of mote's one-input float32 kernels that need nothing but the element count. */
#ifndef MOTE_ELEMENTWISE_F32_H
#define MOTE_ELEMENTWISE_F32_H

#include "mote_types.h"

typedef struct {
  int32_t size; /* elements */
} mote_elementwise_f32_params;

#endif

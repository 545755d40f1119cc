/* The parameters of the float32 binary kernels (mote_add_f32, mote_sub_f32, mote_mul_f32). */
#ifndef MOTE_BINARY_F32_H
#define MOTE_BINARY_F32_H

#include "mote_broadcast.h"
#include "mote_types.h"

/* The output walked as `rank` nested loops over `shape` (mote_broadcast.h); each output is
 * clamp(a op b, act_min, act_max), as TFLite Micro's float kernels compute it. */
typedef struct {
  int32_t rank;                      /* 1 .. MOTE_BCAST_MAX_DIMS */
  const int32_t *shape;              /* [rank] loop extents, outermost first */
  const int32_t *a_strides, *b_strides; /* [rank] element steps per loop step (0: broadcast) */
  float act_min, act_max;            /* the fused activation's range */
} mote_binary_f32_params;

#endif

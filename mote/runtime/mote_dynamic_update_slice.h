#ifndef MOTE_DYNAMIC_UPDATE_SLICE_H
#define MOTE_DYNAMIC_UPDATE_SLICE_H

#include "mote_types.h"

#define MOTE_UPDATE_SLICE_MAX_DIMS 6

/* DYNAMIC_UPDATE_SLICE: the operand copied to the output, then `update` written over it from the start
 * indices (int32, or int64 with wide_indices), each clamped to [0, operand - update] as TFLite Micro does. */
typedef struct {
  int32_t rank;                 /* 1 .. MOTE_UPDATE_SLICE_MAX_DIMS */
  const int32_t *operand_shape; /* [rank] */
  const int32_t *update_shape;  /* [rank] */
  int32_t element_bytes;
  int32_t wide_indices;
} mote_dynamic_update_slice_params;

/* Needs no scratch. */
mote_status mote_dynamic_update_slice(const mote_dynamic_update_slice_params *p, const void *operand,
                                      const void *update, const void *starts, void *output, mote_scratch scratch);

#endif

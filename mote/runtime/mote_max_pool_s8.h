#ifndef MOTE_MAX_POOL_S8_H
#define MOTE_MAX_POOL_S8_H

#include "mote_types.h"

typedef struct {
  int32_t batches, in_h, in_w, channels; /* input NHWC */
  int32_t out_h, out_w;
  int32_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
  int32_t act_min, act_max;
} mote_pool_params;

/* Max pooling over NHWC int8; windows are clipped to the input (padding never wins).
 * Input and output share quantization, so no requantization. */
mote_status mote_max_pool_s8(const mote_pool_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif

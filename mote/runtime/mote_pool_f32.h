/* What the float32 pooling kernels share: their parameters and a window's taps inside the input. */
#ifndef MOTE_POOL_F32_H
#define MOTE_POOL_F32_H

#include <stdint.h>

typedef struct {
  int32_t batches, in_h, in_w, channels; /* input NHWC */
  int32_t out_h, out_w;
  int32_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
  float act_min, act_max;                /* the fused activation's range */
} mote_pool_f32_params;

/* The taps [lo, hi) of a window starting at `start` (may be negative) that lie inside [0, size). */
static inline void mote_pool_span(int32_t start, int32_t filter, int32_t size, int32_t *lo, int32_t *hi) {
  *lo = start < 0 ? -start : 0;
  *hi = size - start < filter ? size - start : filter;
}

#endif

#ifndef MOTE_FULLY_CONNECTED_S16_H
#define MOTE_FULLY_CONNECTED_S16_H

#include "mote_types.h"

/* A 16x8 fully connected layer: out[b][o] = clamp(requantize(bias[o] + sum_d (w[o][d] + filter_offset) *
 * (x[b][d] + input_offset)) + output_offset). */
typedef struct {
  int32_t batches, accum_depth, out_depth;
  int32_t input_offset, filter_offset, output_offset;
  int32_t act_min, act_max;
  int32_t acc64;                /* 1: int64 accumulator (int64 bias or none); 0: int32 (int32 bias) */
  int32_t narrow;               /* 1: no partial sum leaves int32: the products summed in int32 */
  const int8_t *weights;        /* [out_depth][accum_depth] */
  const int64_t *bias;          /* [out_depth] */
  const int32_t *multiplier;    /* [out_depth], Q31 */
  const int32_t *shift;         /* [out_depth], > 0: left */
} mote_fully_connected_s16_params;

/* Bit-exact with TFLite Micro's int16 FullyConnected and FullyConnectedPerChannel. Needs no scratch. */
mote_status mote_fully_connected_s16(const mote_fully_connected_s16_params *p, const int16_t *input,
                                     int16_t *output, mote_scratch scratch);

#endif

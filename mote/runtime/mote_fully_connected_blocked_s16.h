#ifndef MOTE_FULLY_CONNECTED_BLOCKED_S16_H
#define MOTE_FULLY_CONNECTED_BLOCKED_S16_H

#include "mote_types.h"

/* A 16x8 fully connected layer with zero input and filter offsets, register-blocked for scalar cores: eight
 * output rows per inner loop (the last four alone), their int32 accumulators in registers, each loaded input
 * feeding eight products. The weights come interleaved from compile time: the rows, rounded up to a multiple
 * of four with zero rows, in blocks of eight, [accum_depth][8], and a last block of four, [accum_depth][4].
 * Every partial sum fits int32 (checked at compile time); the int64 bias is in the output stage. */
typedef struct {
  int32_t batches, accum_depth, out_depth;
  int32_t output_offset, act_min, act_max;
  const int8_t *weights;  /* the blocks above, each block's rows innermost */
  const int32_t *stage;   /* [out_depth][MOTE_STAGE_S16_ROW] (mote_stage_s16.h) */
} mote_fully_connected_blocked_s16_params;

/* Bit-exact with mote_fully_connected_s16 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_blocked_s16(const mote_fully_connected_blocked_s16_params *p, const int16_t *input,
                                             int16_t *output, mote_scratch scratch);

#endif

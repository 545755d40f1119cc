#ifndef MOTE_CUMSUM_S8_H
#define MOTE_CUMSUM_S8_H

#include "mote_types.h"

/* int8 CUMSUM (mote/ops/cumsum.py): mote_cumsum_f32's walk with ADD_N's rescaling. */
typedef struct {
  int32_t outer, depth, inner;
  int32_t exclusive, reverse;
  int32_t input_offset, input_multiplier, input_shift;
  int32_t output_offset, output_multiplier, output_shift;
  int32_t act_min, act_max;
} mote_cumsum_s8_params;

/* Bit-exact with TFLite Micro's int8 CUMSUM. Needs no scratch. */
mote_status mote_cumsum_s8(const mote_cumsum_s8_params *p, const int8_t *input, int8_t *output,
                           mote_scratch scratch);

#endif

#ifndef MOTE_ADD_N_S8_H
#define MOTE_ADD_N_S8_H

#include "mote_types.h"

/* int8 ADD_N (mote/ops/add_n.py): every input rescaled with 20 bits of headroom, the rescaled input offset
 * included once more, as TFLite Micro sums them. */
typedef struct {
  int32_t count, size;
  int32_t input_offset, input_multiplier, input_shift;
  int32_t output_offset, output_multiplier, output_shift;
  int32_t act_min, act_max;
} mote_add_n_s8_params;

/* Bit-exact with TFLite Micro's int8 ADD_N. Needs no scratch. */
mote_status mote_add_n_s8(const mote_add_n_s8_params *p, const int8_t *const *inputs, int8_t *output,
                          mote_scratch scratch);

#endif

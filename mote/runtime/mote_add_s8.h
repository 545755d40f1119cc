#ifndef MOTE_ADD_S8_H
#define MOTE_ADD_S8_H

#include "mote_broadcast.h"
#include "mote_output_stage.h"
#include "mote_types.h"

/* Broadcast int8 add / sub (TFLite's quantized ADD and SUB). Loop geometry as in mote_broadcast.h.
 * Each input is brought to a common scale: x' = requantize((x + x_offset) << left_shift, x_multiplier,
 * x_shift); then out = clamp(requantize(a' +/- b', out_multiplier, out_shift) + out_offset). */
typedef struct {
  int32_t rank;                          /* 1..MOTE_BCAST_MAX_DIMS loops */
  const int32_t *shape;                  /* [rank] loop extents, outermost first; the output is dense */
  const int32_t *a_strides, *b_strides;  /* [rank] input element strides, 0 where broadcast */
  const int32_t *a_table, *b_table;     /* [256] each input on the common scale, by value + 128 */
  const int32_t *output_stage;           /* [1][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h): the sum to int8 */
  int32_t out_offset;                    /* output zero point */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
} mote_add_params;

/* output = a + b, bit-exact with TFLite Micro's int8 ADD; with b_table holding the negated values,
 * output = a - b, bit-exact with its int8 SUB. Needs no scratch. */
mote_status mote_add_s8(const mote_add_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch);

#endif

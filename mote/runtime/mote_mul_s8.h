#ifndef MOTE_MUL_S8_H
#define MOTE_MUL_S8_H

#include "mote_broadcast.h"
#include "mote_types.h"

/* Broadcast int8 multiply (TFLite's quantized MUL). Loop geometry as in mote_broadcast.h.
 * out = clamp(requantize((a + a_offset) * (b + b_offset), out_multiplier, out_shift) + out_offset). */
typedef struct {
  int32_t rank;                          /* 1..MOTE_BCAST_MAX_DIMS loops */
  const int32_t *shape;                  /* [rank] loop extents, outermost first; the output is dense */
  const int32_t *a_strides, *b_strides;  /* [rank] input element strides, 0 where broadcast */
  int32_t a_offset, b_offset;            /* -zero points, in [-127, 128] */
  int32_t out_offset;                    /* output zero point */
  int32_t out_multiplier, out_shift;     /* Q31 multiplier, shift (> 0: left) */
  const int32_t *output_stage;           /* [1][MOTE_OUTPUT_STAGE_WORDS] (mote_output_stage.h): the product to int8 */
  int32_t act_min, act_max;              /* -128 <= act_min <= act_max <= 127 */
} mote_mul_params;

/* output = a * b, bit-exact with TFLite Micro's int8 MUL. Needs no scratch. */
mote_status mote_mul_s8(const mote_mul_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch);

#endif

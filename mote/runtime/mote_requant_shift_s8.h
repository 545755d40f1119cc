#ifndef MOTE_REQUANT_SHIFT_S8_H
#define MOTE_REQUANT_SHIFT_S8_H

#include "mote_types.h"

typedef struct {
  int32_t size;          /* elements */
  int32_t channels;      /* mul/add length: element i uses index i % channels */
  int32_t input_offset;  /* -input zero point */
  int32_t output_offset; /* output zero point: 0 (signed levels) or -128 (unsigned) */
  int32_t act_min;       /* lowest level, before the output offset */
  int32_t act_max;       /* highest level */
  int32_t divisor;       /* > 0 */
  int32_t shift;         /* log2(divisor) if divisor is a power of two, else -1 */
  int32_t ties_away;     /* 1: an exact half rounds away from zero (Deeploy's integer mean), 0: up */
  const int32_t *mul;    /* [channels] */
  const int32_t *add;    /* [channels] */
} mote_requant_shift_params;

/* RequantShift (integer-dialect ONNX): y = clip(floor((v * mul + add) / divisor + 1/2), act_min, act_max)
 * with v = x + input_offset, in 64-bit integers; stores y + output_offset. The compiler checks that
 * 2 * (v * mul + add) + divisor fits int64. */
static inline int8_t mote_requant_shift_one(const mote_requant_shift_params *p, int32_t x, int32_t c) {
  const int64_t t = ((int64_t)x + p->input_offset) * p->mul[c] + p->add[c];
  int64_t y;
  if (p->ties_away && t < 0) {
    y = -((-2 * t + p->divisor) / (2 * (int64_t)p->divisor)); /* -t rounded half up, both sides positive */
  } else if (p->shift >= 0) {
    /* floor((t + divisor / 2) / divisor); for divisor 1, t. Shifts only non-negative values. */
    const int64_t u = p->shift == 0 ? t : t + ((int64_t)1 << (p->shift - 1));
    y = u >= 0 ? u >> p->shift : -((-u + (((int64_t)1 << p->shift) - 1)) >> p->shift);
  } else {
    const int64_t num = 2 * t + p->divisor, den = 2 * (int64_t)p->divisor;
    y = num / den;
    if (num % den != 0 && num < 0) y -= 1; /* C division truncates; the formula floors */
  }
  if (y < p->act_min) y = p->act_min;
  if (y > p->act_max) y = p->act_max;
  return (int8_t)(y + p->output_offset);
}

/* int8 input (its zero point in input_offset). */
mote_status mote_requant_shift_s8(const mote_requant_shift_params *p, const int8_t *input, int8_t *output,
                                  mote_scratch scratch);

#endif

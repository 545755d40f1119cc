#include "mote_arith_s16.h"

#include "mote_fixedpoint.h"

enum { LEFT_SHIFT = 15 };

static int32_t combine(const mote_arith_s16_params *p, int32_t x, int32_t y) {
  x += p->a_offset;
  y += p->b_offset;
  if (p->operation == MOTE_ARITH_MUL) return x * y;
  /* shifted in uint32: an extreme zero point wraps, as the interpreter's int32 does, without undefined C */
  x = mote_requantize((int32_t)((uint32_t)x << LEFT_SHIFT), p->a_multiplier, p->a_shift);
  y = mote_requantize((int32_t)((uint32_t)y << LEFT_SHIFT), p->b_multiplier, p->b_shift);
  return p->operation == MOTE_ARITH_ADD ? x + y : x - y;
}

mote_status mote_arith_s16(const mote_arith_s16_params *p, const int16_t *a, const int16_t *b, int16_t *output,
                           mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const int32_t raw = combine(p, a[ia], b[ib]);
    const int32_t out = mote_add_wrap(mote_requantize(raw, p->out_multiplier, p->out_shift), p->out_offset);
    output[io] = (int16_t)mote_clamp(out, p->act_min, p->act_max);
  });
  return MOTE_OK;
}

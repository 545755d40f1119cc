#include "mote_squared_difference_int.h"

#include "mote_fixedpoint.h"

static int32_t load(const void *data, int32_t i, int32_t type) {
  return type == 0 ? ((const int8_t *)data)[i] : type == 1 ? ((const int16_t *)data)[i] : ((const int32_t *)data)[i];
}

static int32_t quantized(const mote_squared_difference_int_params *p, int32_t x, int32_t y) {
  const int32_t sx = mote_requantize((x + p->a_offset) * (1 << p->left_shift), p->a_multiplier, p->a_shift);
  const int32_t sy = mote_requantize((y + p->b_offset) * (1 << p->left_shift), p->b_multiplier, p->b_shift);
  const int32_t value = mote_requantize((sx - sy) * (sx - sy), p->out_multiplier, p->out_shift) + p->out_offset;
  return mote_clamp(value, p->act_min, p->act_max);
}

mote_status mote_squared_difference_int(const mote_squared_difference_int_params *p, const void *a, const void *b,
                                        void *output, mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const int32_t x = load(a, ia, p->type), y = load(b, ib, p->type);
    if (p->type == 2) {
      const uint32_t d = (uint32_t)x - (uint32_t)y; /* two's complement, defined in unsigned */
      const uint32_t square = d * d;
      ((int32_t *)output)[io] = square <= (uint32_t)INT32_MAX ? (int32_t)square : -(int32_t)(~square) - 1;
    } else if (p->type == 1) {
      ((int16_t *)output)[io] = (int16_t)quantized(p, x, y);
    } else {
      ((int8_t *)output)[io] = (int8_t)quantized(p, x, y);
    }
  });
  return MOTE_OK;
}

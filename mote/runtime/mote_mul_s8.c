#include "mote_mul_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_mul_s8(const mote_mul_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch) {
  const int32_t inner = p->shape[p->rank - 1];
  const int32_t a_step = p->a_strides[p->rank - 1], b_step = p->b_strides[p->rank - 1];
  const int32_t rows = mote_bcast_rows(p->rank, p->shape);
  mote_bcast_cursor cursor;
  int32_t row, i;
  (void)scratch;
  mote_bcast_start(&cursor);
  for (row = 0; row < rows; ++row) {
    const int8_t *a_row = a + cursor.a, *b_row = b + cursor.b;
    int8_t *out = output + row * inner;
    for (i = 0; i < inner; ++i) {
      const int32_t product = (a_row[i * a_step] + p->a_offset) * (b_row[i * b_step] + p->b_offset);
      const int32_t result = mote_add_wrap(mote_requantize(product, p->out_multiplier, p->out_shift), p->out_offset);
      out[i] = (int8_t)mote_clamp(result, p->act_min, p->act_max);
    }
    mote_bcast_next_row(&cursor, p->rank, p->shape, p->a_strides, p->b_strides);
  }
  return MOTE_OK;
}

#include "mote_mul_f32.h"

#include "mote_float.h"

mote_status mote_mul_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                         mote_scratch scratch) {
  const int32_t inner = p->shape[p->rank - 1];
  const int32_t a_step = p->a_strides[p->rank - 1], b_step = p->b_strides[p->rank - 1];
  const int32_t rows = mote_bcast_rows(p->rank, p->shape);
  const float lo = p->act_min, hi = p->act_max;
  mote_bcast_cursor cursor;
  (void)scratch;
  mote_bcast_start(&cursor);
  for (int32_t row = 0; row < rows; ++row) {
    const float *a_row = a + cursor.a, *b_row = b + cursor.b;
    float *out = output + row * inner;
    for (int32_t i = 0; i < inner; ++i) out[i] = mote_clamp_f32(a_row[i * a_step] * b_row[i * b_step], lo, hi);
    mote_bcast_next_row(&cursor, p->rank, p->shape, p->a_strides, p->b_strides);
  }
  return MOTE_OK;
}

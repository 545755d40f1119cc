#include "mote_add_s8.h"

#include "mote_output_stage.h"

mote_status mote_add_s8(const mote_add_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch) {
  const int32_t inner = p->shape[p->rank - 1];
  const int32_t a_step = p->a_strides[p->rank - 1], b_step = p->b_strides[p->rank - 1];
  const int32_t rows = mote_bcast_rows(p->rank, p->shape);
  /* Locals: the int8 stores below could alias *p as far as the compiler knows. */
  const int32_t *a_table = p->a_table + 128, *b_table = p->b_table + 128;
  const mote_output_channel s = mote_output_channel_at(p->output_stage, 0, p->out_offset, p->act_min, p->act_max);
  const int dense = a_step == 1 && b_step == 1;
  mote_bcast_cursor cursor;
  (void)scratch;
  mote_bcast_start(&cursor);
  for (int32_t row = 0; row < rows; ++row) {
    const int8_t *a_row = a + cursor.a, *b_row = b + cursor.b;
    int8_t *out = output + row * inner;
    /* Both table values are the inputs scaled to 2^20 over twice the larger scale: no overflow. */
    if (dense) { /* the common case: no broadcast within rows */
      for (int32_t i = 0; i < inner; ++i) out[i] = mote_output_of(a_table[a_row[i]] + b_table[b_row[i]], &s);
    } else {
      for (int32_t i = 0; i < inner; ++i) {
        out[i] = mote_output_of(a_table[a_row[i * a_step]] + b_table[b_row[i * b_step]], &s);
      }
    }
    mote_bcast_next_row(&cursor, p->rank, p->shape, p->a_strides, p->b_strides);
  }
  return MOTE_OK;
}

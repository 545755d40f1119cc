#include "mote_mul_s8.h"

#include "mote_output_stage.h"

/* out[i] = the output for (a[i * a_step] + a_offset) * (b[i * b_step] + b_offset), i < n. The steps are
 * constants in the calls below (the inlined loops lose the multiplies and keep a broadcast operand's
 * value in a register); the requantization goes through the layer's output stage and its exact shortcuts. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void mul_row(const mote_mul_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                           int32_t b_step, int8_t *out, int32_t n) {
  const int32_t a_offset = p->a_offset, b_offset = p->b_offset;
  const mote_output_channel s = mote_output_channel_at(p->output_stage, 0, p->out_offset, p->act_min, p->act_max);
  for (int32_t i = 0; i < n; ++i) {
    out[i] = mote_output_of((a[i * a_step] + a_offset) * (b[i * b_step] + b_offset), &s);
  }
}

mote_status mote_mul_s8(const mote_mul_params *p, const int8_t *a, const int8_t *b, int8_t *output,
                        mote_scratch scratch) {
  const int32_t inner = p->shape[p->rank - 1];
  const int32_t a_step = p->a_strides[p->rank - 1], b_step = p->b_strides[p->rank - 1];
  const int32_t rows = mote_bcast_rows(p->rank, p->shape);
  mote_bcast_cursor cursor;
  (void)scratch;
  mote_bcast_start(&cursor);
  for (int32_t row = 0; row < rows; ++row) {
    const int8_t *a_row = a + cursor.a, *b_row = b + cursor.b;
    int8_t *out = output + row * inner;
    if (a_step == 1 && b_step == 1) {
      mul_row(p, a_row, 1, b_row, 1, out, inner);
    } else if (a_step == 1 && b_step == 0) {
      mul_row(p, a_row, 1, b_row, 0, out, inner);
    } else if (a_step == 0 && b_step == 1) {
      mul_row(p, a_row, 0, b_row, 1, out, inner);
    } else {
      mul_row(p, a_row, a_step, b_row, b_step, out, inner);
    }
    mote_bcast_next_row(&cursor, p->rank, p->shape, p->a_strides, p->b_strides);
  }
  return MOTE_OK;
}

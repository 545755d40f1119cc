#include "mote_add_s32.h"

static int64_t load(const void *base, int32_t bytes, int32_t index) {
  return bytes == 1 ? (int64_t)((const int8_t *)base)[index] : (int64_t)((const int32_t *)base)[index];
}

/* Two's-complement wrap of any value to int32 (its low 32 bits), without implementation-defined casts. */
static int32_t wrap32(uint64_t v) {
  const uint32_t u = (uint32_t)(v & 0xffffffffu);
  return u <= 0x7fffffffu ? (int32_t)u : -(int32_t)(0xffffffffu - u) - 1;
}

mote_status mote_add_s32(const mote_add_s32_params *p, const void *a, const void *b, int32_t *output,
                         mote_scratch scratch) {
  const int32_t inner = p->shape[p->rank - 1];
  const int32_t a_step = p->a_strides[p->rank - 1], b_step = p->b_strides[p->rank - 1];
  const int32_t rows = mote_bcast_rows(p->rank, p->shape);
  mote_bcast_cursor cursor;
  int32_t row, i;
  (void)scratch;
  mote_bcast_start(&cursor);
  for (row = 0; row < rows; ++row) {
    int32_t *out = output + row * inner;
    for (i = 0; i < inner; ++i) {
      const int64_t va = load(a, p->a_bytes, cursor.a + i * a_step) + p->a_offset;
      const int64_t vb = load(b, p->b_bytes, cursor.b + i * b_step) + p->b_offset;
      if (p->arith == 2) {
        out[i] = wrap32((uint64_t)va * (uint64_t)vb); /* the low 32 bits of the product: its int32 wrap */
      } else {
        out[i] = wrap32((uint64_t)(p->arith == 1 ? va - vb : va + vb));
      }
    }
    mote_bcast_next_row(&cursor, p->rank, p->shape, p->a_strides, p->b_strides);
  }
  return MOTE_OK;
}

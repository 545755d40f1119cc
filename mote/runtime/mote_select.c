#include "mote_select.h"

#include "mote_libc.h"

mote_status mote_select(const mote_select_params *p, const bool *condition, const void *x, const void *y,
                        void *output, mote_scratch scratch) {
  const size_t size = (size_t)p->element_bytes;
  int32_t index[MOTE_SELECT_MAX_DIMS] = {0};
  int32_t at_c = 0, at_x = 0, at_y = 0;
  uint8_t *out = (uint8_t *)output;
  (void)scratch;
  for (int32_t d = 0; d < p->rank; ++d) {
    if (p->shape[d] == 0) return MOTE_OK;
  }
  for (;;) {
    const uint8_t *from = condition[at_c] ? (const uint8_t *)x + (size_t)at_x * size
                                          : (const uint8_t *)y + (size_t)at_y * size;
    memcpy(out, from, size);
    out += size;
    int32_t d = p->rank - 1;
    for (; d >= 0; --d) { /* the odometer: the innermost loop turns fastest */
      at_c += p->condition_strides[d];
      at_x += p->x_strides[d];
      at_y += p->y_strides[d];
      if (++index[d] < p->shape[d]) break;
      at_c -= p->condition_strides[d] * p->shape[d];
      at_x -= p->x_strides[d] * p->shape[d];
      at_y -= p->y_strides[d] * p->shape[d];
      index[d] = 0;
    }
    if (d < 0) return MOTE_OK;
  }
}

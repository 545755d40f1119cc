#include "mote_strided_copy.h"

#include "mote_libc.h"

mote_status mote_strided_copy(const mote_strided_copy_params *p, const void *input, void *output,
                              mote_scratch scratch) {
  const int32_t last = p->rank - 1;
  const int32_t inner = p->shape[last], step = p->strides[last], size = p->element_bytes;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  int32_t index[MOTE_STRIDED_MAX_DIMS] = {0};
  int32_t at = p->offset; /* input element of the current row's first output */
  (void)scratch;
  for (int32_t d = 0; d < p->rank; ++d) {
    if (p->shape[d] == 0) return MOTE_OK; /* an empty output */
  }
  for (;;) {
    if (step == 1) {
      memcpy(out, in + (size_t)at * (size_t)size, (size_t)inner * (size_t)size);
      out += (size_t)inner * (size_t)size;
    } else {
      for (int32_t i = 0; i < inner; ++i, out += size) {
        memcpy(out, in + (ptrdiff_t)(at + i * step) * size, (size_t)size);
      }
    }
    int32_t d = last - 1;
    for (; d >= 0; --d) { /* the next row: the odometer over the outer loops */
      at += p->strides[d];
      if (++index[d] < p->shape[d]) break;
      at -= p->strides[d] * p->shape[d];
      index[d] = 0;
    }
    if (d < 0) return MOTE_OK;
  }
}

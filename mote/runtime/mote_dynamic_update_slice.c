#include "mote_dynamic_update_slice.h"

#include "mote_libc.h"

mote_status mote_dynamic_update_slice(const mote_dynamic_update_slice_params *p, const void *operand,
                                      const void *update, const void *starts, void *output, mote_scratch scratch) {
  (void)scratch;
  const size_t bytes = (size_t)p->element_bytes;
  int32_t start[MOTE_UPDATE_SLICE_MAX_DIMS], stride[MOTE_UPDATE_SLICE_MAX_DIMS], index[MOTE_UPDATE_SLICE_MAX_DIMS];
  int32_t total = 1, rows = 1;
  for (int32_t d = p->rank - 1; d >= 0; --d) {
    const int64_t raw = p->wide_indices ? ((const int64_t *)starts)[d] : ((const int32_t *)starts)[d];
    const int64_t limit = p->operand_shape[d] - p->update_shape[d];
    start[d] = (int32_t)(raw < 0 ? 0 : (raw > limit ? limit : raw));
    stride[d] = total;
    total *= p->operand_shape[d];
    if (d < p->rank - 1) rows *= p->update_shape[d];
    index[d] = 0;
  }
  if (output != operand) memmove(output, operand, (size_t)total * bytes);
  const int32_t run = p->update_shape[p->rank - 1];
  const uint8_t *from = (const uint8_t *)update;
  for (int32_t r = 0; r < rows; ++r, from += (size_t)run * bytes) {
    int32_t at = 0;
    for (int32_t d = 0; d < p->rank; ++d) at += (start[d] + index[d]) * stride[d];
    memcpy((uint8_t *)output + (size_t)at * bytes, from, (size_t)run * bytes);
    for (int32_t d = p->rank - 2; d >= 0 && ++index[d] == p->update_shape[d]; --d) index[d] = 0;
  }
  return MOTE_OK;
}

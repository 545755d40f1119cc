#include "mote_gather_nd.h"

#include "mote_libc.h"

mote_status mote_gather_nd(const mote_gather_nd_params *p, const void *params, const int32_t *indices, void *output,
                           mote_scratch scratch) {
  (void)scratch;
  const size_t bytes = (size_t)p->slice_size * (size_t)p->element_bytes;
  for (int32_t i = 0; i < p->slices; ++i) {
    int64_t from = 0;
    for (int32_t j = 0; j < p->nd; ++j) from += (int64_t)indices[i * p->nd + j] * p->counts[j];
    if (from < 0 || from + p->slice_size > p->flat_size) return MOTE_ERROR;
    memcpy((uint8_t *)output + (size_t)i * bytes, (const uint8_t *)params + (size_t)from * (size_t)p->element_bytes,
           bytes);
  }
  return MOTE_OK;
}

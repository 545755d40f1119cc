#include "mote_embedding_lookup.h"

#include "mote_libc.h"

mote_status mote_embedding_lookup(const mote_embedding_lookup_params *p, const int32_t *ids, const void *table,
                                  void *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t rows = p->flat_size / p->slice_size;
  const size_t bytes = (size_t)p->slice_size * (size_t)p->element_bytes;
  for (int32_t i = 0; i < p->slices; ++i) {
    if (ids[i] < 0 || ids[i] >= rows) return MOTE_ERROR;
    const uint8_t *row = (const uint8_t *)table + (size_t)ids[i] * bytes;
    if (p->scale == 0.0f) {
      memcpy((uint8_t *)output + (size_t)i * bytes, row, bytes);
    } else {
      float *out = (float *)output + (size_t)i * (size_t)p->slice_size;
      for (int32_t k = 0; k < p->slice_size; ++k) out[k] = (float)((const int8_t *)row)[k] * p->scale;
    }
  }
  return MOTE_OK;
}

#include "mote_indexed_copy.h"

#include "mote_libc.h"

mote_status mote_indexed_copy(const mote_indexed_copy_params *p, const void *input, void *output,
                              mote_scratch scratch) {
  (void)scratch;
  const size_t bytes = (size_t)p->element_bytes;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t from = p->positions[i];
    const void *source = from < 0 ? (const void *)p->fill : (const void *)((const uint8_t *)input + (size_t)from * bytes);
    memcpy((uint8_t *)output + (size_t)i * bytes, source, bytes);
  }
  return MOTE_OK;
}

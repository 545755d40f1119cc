#include "mote_fill.h"

#include "mote_libc.h"

mote_status mote_fill(const mote_fill_params *p, const void *value, void *output, mote_scratch scratch) {
  uint8_t *out = (uint8_t *)output;
  (void)scratch;
  const size_t size = (size_t)p->element_bytes;
  for (int32_t i = 0; i < p->count; ++i) memcpy(out + (size_t)i * size, value, size);
  return MOTE_OK;
}

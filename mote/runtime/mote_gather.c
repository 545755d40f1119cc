#include "mote_gather.h"

#include "mote_libc.h"

mote_status mote_gather(const mote_gather_params *p, const void *input, const void *indices, void *output,
                        mote_scratch scratch) {
  const size_t block = (size_t)p->inner * (size_t)p->element_bytes;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  (void)scratch;
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t k = 0; k < p->count; ++k) {
      const int64_t at = p->index_type == MOTE_ELEMENT_S64 ? ((const int64_t *)indices)[k]
                                                            : ((const int32_t *)indices)[k];
      if (at < 0 || at >= p->extent) return MOTE_ERROR;
      memcpy(out, in + ((size_t)o * (size_t)p->extent + (size_t)at) * block, block);
      out += block;
    }
  }
  return MOTE_OK;
}

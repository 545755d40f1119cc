#include "mote_quantize_flip_u8.h"

mote_status mote_quantize_flip_u8(const mote_quantize_flip_params *p, const void *input, void *output,
                                  mote_scratch scratch) {
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) out[i] = (uint8_t)(in[i] ^ 0x80u);
  return MOTE_OK;
}

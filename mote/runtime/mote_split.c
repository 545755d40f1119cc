#include "mote_split.h"

#include "mote_libc.h"

mote_status mote_split(const mote_split_params *p, const void *input, void *const *outputs, mote_scratch scratch) {
  const uint8_t *in = (const uint8_t *)input;
  (void)scratch;
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t i = 0; i < p->num_outputs; ++i) {
      memcpy((uint8_t *)outputs[i] + (size_t)o * (size_t)p->chunks[i], in, (size_t)p->chunks[i]);
      in += p->chunks[i];
    }
  }
  return MOTE_OK;
}

#include "mote_concatenation_s8.h"

#include "mote_libc.h"

mote_status mote_concatenation_s8(const mote_concatenation_params *p, const int8_t *const *inputs, int8_t *output,
                                  mote_scratch scratch) {
  int32_t o, i;
  (void)scratch;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->num_inputs; ++i) {
      const int32_t chunk = p->chunks[i];
      memcpy(output, inputs[i] + (size_t)o * (size_t)chunk, (size_t)chunk);
      output += chunk;
    }
  }
  return MOTE_OK;
}

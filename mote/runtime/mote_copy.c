#include "mote_copy.h"

#include "mote_libc.h"

mote_status mote_copy(const mote_copy_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  (void)scratch;
  if (input != output) memmove(output, input, (size_t)p->bytes);
  return MOTE_OK;
}

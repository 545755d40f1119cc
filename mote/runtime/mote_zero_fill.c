#include "mote_zero_fill.h"

#include "mote_libc.h"

mote_status mote_zero_fill(const mote_fill_params *p, void *output, mote_scratch scratch) {
  (void)scratch;
  memset(output, 0, (size_t)p->count * (size_t)p->element_bytes);
  return MOTE_OK;
}

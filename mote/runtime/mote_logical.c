#include "mote_logical.h"

mote_status mote_logical(const mote_element_binary_params *p, const bool *a, const bool *b, bool *output,
                         mote_scratch scratch) {
  (void)scratch;
  if (p->operation) {
    MOTE_ELEMENT_WALK(p, output[io] = a[ia] && b[ib]);
  } else {
    MOTE_ELEMENT_WALK(p, output[io] = a[ia] || b[ib]);
  }
  return MOTE_OK;
}

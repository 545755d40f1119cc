#include "mote_logical_not.h"

mote_status mote_logical_not(const mote_cast_params *p, const bool *input, bool *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = !input[i];
  return MOTE_OK;
}

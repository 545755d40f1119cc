#include "mote_reduce_all_bool.h"

mote_status mote_reduce_all_bool(const mote_reduce_params *p, const bool *input, bool *output, mote_scratch scratch) {
  (void)scratch;
  MOTE_REDUCE_WALK(p, bool, input, bool all = true, all = all && v, *output++ = all);
  return MOTE_OK;
}

#include "mote_broadcast_args.h"

/* An extent as the interpreter reads it, into an int: an int64 one keeps its low 32 bits. */
static int32_t extent(const void *shape, int32_t size, int32_t backward, int32_t wide) {
  const int32_t i = size - 1 - backward;
  if (i < 0) return 1;
  return wide ? (int32_t)((const int64_t *)shape)[i] : ((const int32_t *)shape)[i];
}

mote_status mote_broadcast_args(const mote_broadcast_args_params *p, const void *a, const void *b, void *output,
                                mote_scratch scratch) {
  (void)scratch;
  for (int32_t k = 0; k < p->out_size; ++k) {
    const int32_t x = extent(a, p->a_size, k, p->wide), y = extent(b, p->b_size, k, p->wide);
    if (x != y && x != 1 && y != 1) return MOTE_ERROR;
    const int32_t value = x == 1 ? y : x;
    if (p->wide) {
      ((int64_t *)output)[p->out_size - 1 - k] = value;
    } else {
      ((int32_t *)output)[p->out_size - 1 - k] = value;
    }
  }
  return MOTE_OK;
}

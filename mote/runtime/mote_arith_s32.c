#include "mote_arith_s32.h"

/* Two's-complement arithmetic in uint32_t: defined on overflow, unlike int32_t's. */
static int32_t mote_arith(int32_t operation, int32_t x, int32_t y) {
  const uint32_t u = (uint32_t)x, v = (uint32_t)y;
  const uint32_t r = operation == MOTE_ARITH_ADD ? u + v : operation == MOTE_ARITH_SUB ? u - v : u * v;
  return r <= (uint32_t)INT32_MAX ? (int32_t)r : -(int32_t)(~r) - 1;
}

mote_status mote_arith_s32(const mote_arith_s32_params *p, const int32_t *a, const int32_t *b, int32_t *output,
                           mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const int32_t r = mote_arith(p->operation, a[ia], b[ib]);
    output[io] = r < p->act_min ? p->act_min : (r > p->act_max ? p->act_max : r);
  });
  return MOTE_OK;
}

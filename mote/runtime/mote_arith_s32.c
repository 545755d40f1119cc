#include "mote_arith_s32.h"

/* Two's-complement arithmetic in uint32_t: defined on overflow, unlike int32_t's. */
static int32_t mote_arith(int32_t operation, int32_t x, int32_t y) {
  const uint32_t u = (uint32_t)x, v = (uint32_t)y;
  if (operation == MOTE_ARITH_DIV && y != -1) return x / y; /* truncates; the caller refuses y == 0 */
  const uint32_t r = operation == MOTE_ARITH_ADD ? u + v
                     : operation == MOTE_ARITH_SUB ? u - v
                     : operation == MOTE_ARITH_MUL ? u * v
                                                   : 0u - u; /* x / -1, INT32_MIN wrapping to itself */
  return r <= (uint32_t)INT32_MAX ? (int32_t)r : -(int32_t)(~r) - 1;
}

mote_status mote_arith_s32(const mote_arith_s32_params *p, const int32_t *a, const int32_t *b, int32_t *output,
                           mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    if (p->operation == MOTE_ARITH_DIV && b[ib] == 0) return MOTE_ERROR;
    const int32_t r = mote_arith(p->operation, a[ia], b[ib]);
    output[io] = r < p->act_min ? p->act_min : (r > p->act_max ? p->act_max : r);
  });
  return MOTE_OK;
}

#include "mote_integer_div_s32.h"

#include "mote_isqrt.h" /* mote_floor_shift_s64 */

mote_status mote_integer_div_s32(const mote_integer_div_params *p, const int32_t *a, const int32_t *b,
                                 int32_t *output, mote_scratch scratch) {
  int32_t g, i;
  (void)scratch;
  for (g = 0; g < p->groups; ++g) {
    const int64_t d = (int64_t)p->eta * b[g] + p->eps, half = mote_floor_shift_s64(d, 1);
    if (d == 0) return MOTE_ERROR;
    for (i = 0; i < p->inner; ++i) {
      const int64_t n = (int64_t)p->delta_eta * a[g * p->inner + i];
      output[g * p->inner + i] = (int32_t)(uint32_t)(uint64_t)((n >= 0 ? n + half : n - half) / d);
    }
  }
  return MOTE_OK;
}

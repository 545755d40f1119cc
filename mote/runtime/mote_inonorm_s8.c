#include "mote_inonorm_s8.h"

#include "mote_isqrt.h" /* mote_floor_shift_s64 */

mote_status mote_inonorm_s8(const mote_inonorm_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch) {
  int32_t i, w = 0, b = 0;
  (void)scratch;
  for (i = 0; i < p->size; ++i) {
    const int32_t v = (input[i] * p->weight[w] + p->bias[b]) * p->mul;
    output[i] = (int8_t)(uint8_t)(uint32_t)mote_floor_shift_s64(v, p->log2d);
    if (++w == p->weight_period) w = 0;
    if (++b == p->bias_period) b = 0;
  }
  return MOTE_OK;
}

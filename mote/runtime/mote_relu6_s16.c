#include "mote_relu6_s16.h"

#include "mote_fixedpoint.h"

mote_status mote_relu6_s16(const mote_relu6_params *p, const int16_t *input, int16_t *output,
                           mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = (int16_t)mote_clamp(input[i], p->lower, p->upper);
  return MOTE_OK;
}

#include "mote_relu6_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_relu6_s8(const mote_relu6_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) output[i] = (int8_t)mote_clamp(input[i], p->lower, p->upper);
  return MOTE_OK;
}

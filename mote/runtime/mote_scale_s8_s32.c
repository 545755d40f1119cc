#include "mote_scale_s8_s32.h"

mote_status mote_scale_s8_s32(const mote_scale_s8_s32_params *p, const int8_t *input, int32_t *output,
                              mote_scratch scratch) {
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) output[i] = (input[i] + p->input_offset) * p->factor;
  return MOTE_OK;
}

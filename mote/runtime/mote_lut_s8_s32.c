#include "mote_lut_s8_s32.h"

mote_status mote_lut_s8_s32(const mote_lut_s8_s32_params *p, const int8_t *input, int32_t *output,
                            mote_scratch scratch) {
  const int32_t *table = p->table;
  int32_t i;
  (void)scratch;
  for (i = 0; i < p->size; ++i) output[i] = table[(uint8_t)input[i]];
  return MOTE_OK;
}

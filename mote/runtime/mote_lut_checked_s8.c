#include "mote_lut_checked_s8.h"

mote_status mote_lut_checked_s8(const mote_lut_checked_s8_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    if (input[i] < p->min_input) return MOTE_ERROR;
  }
  for (int32_t i = 0; i < p->size; ++i) output[i] = p->table[(uint8_t)input[i]];
  return MOTE_OK;
}

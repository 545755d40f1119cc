#include "mote_requant_shift_s8.h"

mote_status mote_requant_shift_s8(const mote_requant_shift_params *p, const int8_t *input, int8_t *output,
                                  mote_scratch scratch) {
  int32_t i, c = 0;
  (void)scratch;
  for (i = 0; i < p->size; ++i) {
    output[i] = mote_requant_shift_one(p, input[i], c);
    if (++c == p->channels) c = 0;
  }
  return MOTE_OK;
}

#include "mote_logistic_s16.h"

mote_status mote_logistic_s16(const mote_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    output[i] = mote_logistic_s16_of(mote_sigmoid_s16_input(p, input[i]), p->table);
  }
  return MOTE_OK;
}

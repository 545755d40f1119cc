#include "mote_logistic_s16.h"

mote_status mote_logistic_s16(const mote_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t v = mote_sigmoid_s16_input(p, input[i]);
    const uint32_t magnitude = (uint32_t)(v < 0 ? -v : v);
    const uint32_t step = magnitude >> 9;
    uint32_t result = 0x7FFFu << 10; /* past the table: saturated */
    if (step < 255) {
      const uint32_t low = p->table[step], high = p->table[step + 1];
      result = (low << 9) + (magnitude & 0x1FF) * (high - low);
    }
    result = v >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
    output[i] = (int16_t)(result >> 10);
  }
  return MOTE_OK;
}

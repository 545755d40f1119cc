#include "mote_tanh_s16.h"

mote_status mote_tanh_s16(const mote_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                          mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t v = mote_sigmoid_s16_input(p, input[i]);
    const uint32_t magnitude = (uint32_t)(v < 0 ? -v : v);
    const uint32_t step = magnitude >> 8;
    int32_t result = (int32_t)(0xFFFFu << 8); /* past the table: saturated */
    if (step < 255) {
      const uint32_t low = p->table[step], high = p->table[step + 1];
      result = (int32_t)((low << 8) + (magnitude & 0xFF) * (high - low));
    }
    result = v >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    output[i] = (int16_t)(result >> 8);
  }
  return MOTE_OK;
}

#include "mote_isoftmax_s8.h"

mote_status mote_isoftmax_s8(const mote_isoftmax_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  const uint32_t *table = p->table;
  const uint32_t scale = p->levels_minus_one, shift = (uint32_t)p->output_offset;
  int32_t r, j;
  (void)scratch;
  for (r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->length;
    int8_t *y = output + r * p->length;
    int32_t max = -128;
    uint32_t sum = 0;
    for (j = 0; j < p->length; ++j)
      if (x[j] > max) max = x[j];
    for (j = 0; j < p->length; ++j) sum += table[max - x[j]];
    for (j = 0; j < p->length; ++j) y[j] = (int8_t)(uint8_t)((table[max - x[j]] * scale) / sum + shift);
  }
  return MOTE_OK;
}

#include "mote_ita_max_s8.h"

mote_status mote_ita_max_s8(const mote_ita_max_params *p, const int8_t *input, int8_t *output,
                            mote_scratch scratch) {
  int32_t r, j;
  (void)scratch;
  for (r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->length;
    int8_t *y = output + r * p->length;
    int32_t max = -128;
    uint32_t sum = 0, inverse;
    for (j = 0; j < p->length; ++j)
      if (x[j] > max) max = x[j];
    for (j = 0; j < p->length; ++j) sum += 256u >> ((max - x[j] + 16) >> 5);
    inverse = p->numerator / sum;
    for (j = 0; j < p->length; ++j)
      y[j] = (int8_t)(uint8_t)((inverse >> ((max - x[j] + 16) >> 5)) + (uint32_t)p->output_offset);
  }
  return MOTE_OK;
}

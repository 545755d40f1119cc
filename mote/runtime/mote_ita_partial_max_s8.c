#include "mote_ita_partial_max_s8.h"

mote_status mote_ita_partial_max_s8(const mote_ita_partial_max_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch) {
  int32_t r, g, j;
  (void)scratch;
  for (r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->length;
    int8_t *y = output + r * p->length;
    int32_t running = -128;
    uint32_t total = 0, inverse;
    for (g = 0; g < p->length; g += p->group_width) {
      const int8_t *group = x + g;
      int32_t current = -128, rescale = 0;
      uint32_t sum = 0;
      for (j = 0; j < p->group_width; ++j)
        if (group[j] > current) current = group[j];
      if (current > running) {
        rescale = (current - running + 16) >> 5;
        running = current;
      }
      for (j = 0; j < p->group_width; ++j) sum += 256u >> ((running - group[j] + 16) >> 5);
      total = (total >> rescale) + sum;
    }
    inverse = p->numerator / total;
    for (j = 0; j < p->length; ++j)
      y[j] = (int8_t)(uint8_t)((inverse >> ((running - x[j] + 16) >> 5)) + (uint32_t)p->output_offset);
  }
  return MOTE_OK;
}

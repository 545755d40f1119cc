#include "mote_table_mean_s8.h"

mote_status mote_table_mean_s8(const mote_table_mean_s8_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch) {
  (void)scratch;
  if (p->depth <= 0 || p->depth > 32768 || p->fraction < 0 || p->fraction > 16) return MOTE_ERROR;
  const int64_t unit = (int64_t)p->depth << p->fraction;
  for (int32_t r = 0; r < p->rows; ++r, input += p->depth) {
    int64_t sum = unit / 2;
    for (int32_t j = 0; j < p->depth; ++j) sum += p->table[(uint8_t)input[j]];
    /* floor division: C's division truncates toward zero */
    int64_t q = sum / unit;
    if (sum % unit != 0 && sum < 0) --q;
    q += p->output_zero_point;
    output[r] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
  }
  return MOTE_OK;
}

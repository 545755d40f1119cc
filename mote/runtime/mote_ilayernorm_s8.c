#include "mote_ilayernorm_s8.h"

#include "mote_isqrt.h"

mote_status mote_ilayernorm_s8(const mote_ilayernorm_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch) {
  int32_t r, j;
  (void)scratch;
  for (r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->length;
    int8_t *y = output + r * p->length;
    int32_t sum = 0, squares = 0, mean, std;
    for (j = 0; j < p->length; ++j) sum += x[j] + p->input_offset;
    mean = sum / p->length - p->input_offset; /* x[j] - mean is then v - mean(v) */
    for (j = 0; j < p->length; ++j) squares += (x[j] - mean) * (x[j] - mean);
    std = mote_isqrt_u32(squares / p->length + 1);
    for (j = 0; j < p->length; ++j) {
      int64_t v;
      if (p->narrow) {
        v = (int64_t)(((x[j] - mean) * p->weight[j]) / std);
      } else {
        v = ((int64_t)(x[j] - mean) * p->weight[j]) / std;
      }
      y[j] = (int8_t)(uint8_t)(uint64_t)mote_floor_shift_s64(v + p->bias[j], p->log2d);
    }
  }
  return MOTE_OK;
}

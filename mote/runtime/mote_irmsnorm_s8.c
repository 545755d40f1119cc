#include "mote_irmsnorm_s8.h"

#include "mote_isqrt.h"

mote_status mote_irmsnorm_s8(const mote_irmsnorm_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  int32_t r, j;
  (void)scratch;
  for (r = 0; r < p->rows; ++r) {
    const int8_t *x = input + r * p->length;
    int8_t *y = output + r * p->length;
    int32_t squares = 0, std;
    for (j = 0; j < p->length; ++j) {
      const int32_t v = x[j] + p->input_offset;
      squares += v * v;
    }
    std = mote_isqrt_u32(squares / p->length + 1);
    for (j = 0; j < p->length; ++j) {
      int32_t v = (int32_t)mote_floor_shift_s64(((x[j] + p->input_offset) * p->weight[j]) / std, p->log2d);
      if (v < -128) v = -128;
      if (v > 127) v = 127;
      y[j] = (int8_t)v;
    }
  }
  return MOTE_OK;
}

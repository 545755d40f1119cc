#include "mote_dequantize_s16_f32.h"

mote_status mote_dequantize_s16_f32(const mote_dequantize_params *p, const int16_t *input, float *output,
                                    mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = p->scale * (float)(input[i] - p->zero_point);
  return MOTE_OK;
}

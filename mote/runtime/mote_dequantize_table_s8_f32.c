#include "mote_dequantize_table_s8_f32.h"

mote_status mote_dequantize_table_s8_f32(const mote_dequantize_table_params *p, const int8_t *input, float *output,
                                         mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) output[i] = p->table[(uint8_t)input[i]];
  return MOTE_OK;
}

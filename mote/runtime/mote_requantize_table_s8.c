#include "mote_requantize_table_s8.h"

mote_status mote_requantize_table_s8(const mote_lut_s8_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch) {
  return mote_lut_s8(p, input, output, scratch);
}

#include "mote_conv_requant_shift_wide_s8.h"

mote_status mote_conv_requant_shift_wide_s8(const mote_conv_offset_blocked_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch) {
  return mote_conv_blocked_wide_s8(p, input, output, scratch);
}

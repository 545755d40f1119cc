#include "mote_requantize_s32_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_requantize_s32_s8(const mote_requantize_s32_params *p, const int32_t *input, int8_t *output,
                                   mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; i += p->channels) {
    for (int32_t c = 0; c < p->channels; ++c) {
      const int32_t v = mote_requantize(input[i + c], p->multiplier[c], p->shift[c]) + p->output_offset;
      output[i + c] = (int8_t)mote_clamp(v, p->act_min, p->act_max);
    }
  }
  return MOTE_OK;
}

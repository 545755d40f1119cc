#include "mote_cumsum_s8.h"

#include "mote_fixedpoint.h"

static int32_t scaled(const mote_cumsum_s8_params *p, int32_t v) {
  return mote_requantize((int32_t)((uint32_t)v << 20), p->input_multiplier, p->input_shift);
}

mote_status mote_cumsum_s8(const mote_cumsum_s8_params *p, const int8_t *input, int8_t *output,
                           mote_scratch scratch) {
  (void)scratch;
  const int32_t start = scaled(p, p->input_offset);
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t i = 0; i < p->inner; ++i) {
      int32_t acc = start;
      for (int32_t k = 0; k < p->depth; ++k) {
        const int32_t d = p->reverse ? p->depth - 1 - k : k;
        const int32_t at = (o * p->depth + d) * p->inner + i;
        const int32_t y = scaled(p, input[at] + p->input_offset);
        const int32_t sum = p->exclusive ? acc : acc + y;
        acc += y;
        const int32_t out = mote_requantize(sum, p->output_multiplier, p->output_shift) + p->output_offset;
        output[at] = (int8_t)mote_clamp(out, p->act_min, p->act_max);
      }
    }
  }
  return MOTE_OK;
}

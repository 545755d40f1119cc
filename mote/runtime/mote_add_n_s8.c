#include "mote_add_n_s8.h"

#include "mote_fixedpoint.h"

static int32_t scaled(const mote_add_n_s8_params *p, int32_t v) {
  return mote_requantize((int32_t)((uint32_t)v << 20), p->input_multiplier, p->input_shift);
}

mote_status mote_add_n_s8(const mote_add_n_s8_params *p, const int8_t *const *inputs, int8_t *output,
                          mote_scratch scratch) {
  (void)scratch;
  const int32_t start = scaled(p, p->input_offset);
  for (int32_t i = 0; i < p->size; ++i) {
    int32_t acc = start;
    for (int32_t j = 0; j < p->count; ++j) acc += scaled(p, inputs[j][i] + p->input_offset);
    const int32_t out = mote_requantize(acc, p->output_multiplier, p->output_shift) + p->output_offset;
    output[i] = (int8_t)mote_clamp(out, p->act_min, p->act_max);
  }
  return MOTE_OK;
}

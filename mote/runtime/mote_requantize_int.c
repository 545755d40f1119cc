#include "mote_requantize_int.h"

#include "mote_fixedpoint.h"

static int32_t load(const void *data, int32_t i, int32_t type) {
  switch (type) {
    case 0: return ((const int8_t *)data)[i];
    case 1: return ((const uint8_t *)data)[i];
    case 2: return ((const int16_t *)data)[i];
    default: return ((const int32_t *)data)[i];
  }
}

static void store(void *data, int32_t i, int32_t type, int32_t value) {
  switch (type) {
    case 0: ((int8_t *)data)[i] = (int8_t)value; break;
    case 1: ((uint8_t *)data)[i] = (uint8_t)value; break;
    case 2: ((int16_t *)data)[i] = (int16_t)value; break;
    default: ((int32_t *)data)[i] = value; break;
  }
}

mote_status mote_requantize_int(const mote_requantize_int_params *p, const void *input, void *output,
                                mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t d = (int32_t)((uint32_t)load(input, i, p->input_type) - (uint32_t)p->input_zero_point);
    const int32_t out = mote_add_wrap(mote_requantize(d, p->multiplier, p->shift), p->output_zero_point);
    store(output, i, p->output_type, mote_clamp(out, p->output_min, p->output_max));
  }
  return MOTE_OK;
}

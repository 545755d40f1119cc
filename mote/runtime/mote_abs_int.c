#include "mote_abs_int.h"

#include "mote_fixedpoint.h"

mote_status mote_abs_int(const mote_abs_int_params *p, const void *input, void *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t i = 0; i < p->size; ++i) {
    const int32_t x = p->wide ? ((const int16_t *)input)[i] : ((const int8_t *)input)[i];
    const int32_t d = x - p->input_offset;
    int32_t value = d < 0 ? -d : d;
    if (!p->wrap) {
      if (p->rescale) value = mote_requantize(value, p->multiplier, p->shift);
      value = mote_clamp(value + p->output_offset, p->out_min, p->out_max);
    }
    if (p->wide) {
      ((int16_t *)output)[i] = (int16_t)value; /* 32768 from an unquantized -32768 wraps back, as in TFLite */
    } else {
      ((int8_t *)output)[i] = (int8_t)value;
    }
  }
  return MOTE_OK;
}

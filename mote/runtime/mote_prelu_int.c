#include "mote_prelu_int.h"

#include "mote_fixedpoint.h"

mote_status mote_prelu_int(const mote_prelu_params *p, const void *input, const int8_t *alpha, void *output,
                           mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const int32_t x = p->wide ? ((const int16_t *)input)[ia] : ((const int8_t *)input)[ia];
    const int32_t d = x + p->input_offset;
    const int32_t scaled = d >= 0 ? mote_requantize(d, p->identity_multiplier, p->identity_shift)
                                  : mote_requantize(d * (alpha[ib] + p->alpha_offset), p->alpha_multiplier,
                                                    p->alpha_shift);
    const int32_t value = mote_clamp(scaled + p->output_offset, p->act_min, p->act_max);
    if (p->wide) {
      ((int16_t *)output)[io] = (int16_t)value;
    } else {
      ((int8_t *)output)[io] = (int8_t)value;
    }
  });
  return MOTE_OK;
}

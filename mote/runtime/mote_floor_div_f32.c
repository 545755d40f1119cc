#include "mote_floor_div_f32.h"

#include "mote_float_round.h"
#include "mote_element.h"

mote_status mote_floor_div_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                               mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const float x = a[ia], y = b[ib];
    output[io] = mote_floor_float(x / y);
  });
  return MOTE_OK;
}

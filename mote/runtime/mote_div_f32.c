#include "mote_div_f32.h"

#include "mote_float.h"
#include "mote_element.h"

mote_status mote_div_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                         mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const float x = a[ia], y = b[ib];
    output[io] = mote_clamp_f32(x / y, p->act_min, p->act_max);
  });
  return MOTE_OK;
}

#include "mote_floor_mod_f32.h"

#include "mote_element.h"
#include "mote_fmodf.h"

mote_status mote_floor_mod_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                               mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const float y = b[ib], m = mote_fmodf(a[ia], y);
    output[io] = (m != 0.0f && ((y < 0.0f) != (m < 0.0f))) ? m + y : m;
  });
  return MOTE_OK;
}

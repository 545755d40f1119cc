#include "mote_squared_difference_f32.h"

#include "mote_element.h"

mote_status mote_squared_difference_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                                        mote_scratch scratch) {
  (void)scratch;
  MOTE_ELEMENT_WALK(p, {
    const float x = a[ia], y = b[ib];
    output[io] = (x - y) * (x - y);
  });
  return MOTE_OK;
}

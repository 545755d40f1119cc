#include "mote_cumsum_f32.h"

mote_status mote_cumsum_f32(const mote_cumsum_f32_params *p, const float *input, float *output,
                            mote_scratch scratch) {
  (void)scratch;
  for (int32_t o = 0; o < p->outer; ++o) {
    for (int32_t i = 0; i < p->inner; ++i) {
      float acc = 0.0f;
      for (int32_t k = 0; k < p->depth; ++k) {
        const int32_t d = p->reverse ? p->depth - 1 - k : k;
        const int32_t at = (o * p->depth + d) * p->inner + i;
        const float x = input[at];
        if (p->exclusive) {
          output[at] = acc;
          acc += x;
        } else {
          acc += x;
          output[at] = acc;
        }
      }
    }
  }
  return MOTE_OK;
}

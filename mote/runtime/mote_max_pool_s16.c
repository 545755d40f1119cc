#include "mote_max_pool_s16.h"

#include "mote_fixedpoint.h"
#include "mote_pool_s16.h"

mote_status mote_max_pool_s16(const mote_pool_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch) {
  (void)scratch;
  MOTE_POOL_S16_WALK(p, input, output, {
    value = INT16_MIN;
    for (int32_t y = 0; y < rows; ++y) {
      for (int32_t x = 0; x < cols; ++x) {
        const int32_t v = window[y * row_step + x * channels];
        if (v > value) value = v;
      }
    }
  })
  return MOTE_OK;
}

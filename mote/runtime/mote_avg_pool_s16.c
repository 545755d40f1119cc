#include "mote_avg_pool_s16.h"

#include "mote_fixedpoint.h"
#include "mote_pool_s16.h"

mote_status mote_avg_pool_s16(const mote_pool_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch) {
  (void)scratch;
  MOTE_POOL_S16_WALK(p, input, output, {
    const int32_t count = rows * cols;
    if (count <= 0) return MOTE_ERROR;
    int32_t sum = 0;
    for (int32_t y = 0; y < rows; ++y) {
      for (int32_t x = 0; x < cols; ++x) sum += window[y * row_step + x * channels];
    }
    value = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  })
  return MOTE_OK;
}

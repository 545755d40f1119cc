#include "mote_sum_s16.h"

#include "mote_fixedpoint.h"

mote_status mote_sum_s16(const mote_reduce_quantized_params *p, const int16_t *input, int16_t *output, mote_scratch scratch) {
  const int32_t last = p->reduced_rank - 1;
  const int32_t n = p->reduced_shape[last], step = p->reduced_strides[last];
  int32_t kept_index[MOTE_REDUCE_MAX_DIMS] = {0};
  int32_t kept_offset = 0;
  (void)scratch;
  do {
    const int16_t *base = input + kept_offset;
    int32_t index[MOTE_REDUCE_MAX_DIMS] = {0};
    int32_t offset = 0;
    int32_t acc = 0;
    do {
      const int16_t *row = base + offset;
      for (int32_t i = 0; i < n; ++i) {
        acc += row[i * step];
      }
    } while (mote_reduce_next(last, p->reduced_shape, p->reduced_strides, index, &offset));
    const int32_t y = mote_requantize(acc + p->bias, p->multiplier, p->shift) + p->output_zero_point;
    *output++ = (int16_t)mote_clamp(y, INT16_MIN, INT16_MAX);
  } while (mote_reduce_next(p->kept_rank, p->kept_shape, p->kept_strides, kept_index, &kept_offset));
  return MOTE_OK;
}

#include "mote_reduce_max_f32.h"

mote_status mote_reduce_max_f32(const mote_reduce_params *p, const float *input, float *output, mote_scratch scratch) {
  const int32_t last = p->reduced_rank - 1;
  const int32_t n = p->reduced_shape[last], step = p->reduced_strides[last];
  int32_t kept_index[MOTE_REDUCE_MAX_DIMS] = {0};
  int32_t kept_offset = 0;
  (void)scratch;
  do {
    const float *base = input + kept_offset;
    int32_t index[MOTE_REDUCE_MAX_DIMS] = {0};
    int32_t offset = 0;
    float acc = -3.40282347e+38f;
    do {
      const float *row = base + offset;
      for (int32_t i = 0; i < n; ++i) {
        const float v = row[i * step];
        acc = v > acc ? v : acc;
      }
    } while (mote_reduce_next(last, p->reduced_shape, p->reduced_strides, index, &offset));
    *output++ = acc;
  } while (mote_reduce_next(p->kept_rank, p->kept_shape, p->kept_strides, kept_index, &kept_offset));
  return MOTE_OK;
}

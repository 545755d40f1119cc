#include "mote_mean_f32.h"

/* Advances a row-major multi-index over dims [0, count) of `shape`, keeping `offset` (in input
 * elements) in step. Returns 0 once every index has been visited. */
static int next_index(int32_t count, const int32_t *shape, const int32_t *strides, int32_t *index,
                      int32_t *offset) {
  int32_t d;
  for (d = count - 1; d >= 0; --d) {
    *offset += strides[d];
    if (++index[d] < shape[d]) return 1;
    *offset -= strides[d] * shape[d];
    index[d] = 0;
  }
  return 0;
}

/* The sum over every reduced index from `base`, in row-major order; the innermost reduced dimension is a loop. */
static float reduced_sum(const mote_mean_f32_params *p, const float *base) {
  const int32_t last = p->reduced_rank - 1;
  const int32_t n = p->reduced_shape[last], step = p->reduced_strides[last];
  int32_t index[MOTE_MEAN_F32_MAX_DIMS] = {0};
  int32_t offset = 0, i;
  float sum = 0.0f;
  do {
    const float *row = base + offset;
    for (i = 0; i < n; ++i) sum += row[i * step];
  } while (next_index(last, p->reduced_shape, p->reduced_strides, index, &offset));
  return sum;
}

mote_status mote_mean_f32(const mote_mean_f32_params *p, const float *input, float *output, mote_scratch scratch) {
  int32_t index[MOTE_MEAN_F32_MAX_DIMS] = {0};
  int32_t offset = 0;
  (void)scratch;
  do {
    *output++ = reduced_sum(p, input + offset) / p->count;
  } while (next_index(p->kept_rank, p->kept_shape, p->kept_strides, index, &offset));
  return MOTE_OK;
}

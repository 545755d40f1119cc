#include "mote_mean_s8.h"

#include "mote_fixedpoint.h"

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

/* The sum over every reduced index, starting from `base`; the innermost reduced dimension is a loop.
 * Modulo 2^32, as TFLite's int32 sum wraps (and as the reference computes it) for very large counts. */
static int32_t reduced_sum(const mote_mean_params *p, const int8_t *base) {
  const int32_t last = p->reduced_rank - 1;
  const int32_t n = p->reduced_shape[last], step = p->reduced_strides[last];
  int32_t index[MOTE_MEAN_MAX_DIMS] = {0};
  int32_t offset = 0, i;
  uint32_t sum = 0;
  do {
    const int8_t *row = base + offset;
    for (i = 0; i < n; ++i) sum += (uint32_t)(int32_t)row[i * step];
  } while (next_index(last, p->reduced_shape, p->reduced_strides, index, &offset));
  return (int32_t)sum;
}

mote_status mote_mean_s8(const mote_mean_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  int32_t index[MOTE_MEAN_MAX_DIMS] = {0};
  int32_t offset = 0;
  (void)scratch;
  do {
    const int32_t sum = reduced_sum(p, input + offset);
    const int32_t shifted = mote_add_wrap(sum, p->bias);
    const int32_t y = mote_add_wrap(mote_requantize(shifted, p->multiplier, p->shift), p->output_zero_point);
    *output++ = (int8_t)mote_clamp(y, -128, 127);
  } while (next_index(p->kept_rank, p->kept_shape, p->kept_strides, index, &offset));
  return MOTE_OK;
}

/* What the reductions over constant axes share (SUM, REDUCE_MAX, REDUCE_MIN): their parameters and
 * the walk over an input's kept and reduced dimensions. */
#ifndef MOTE_REDUCE_H
#define MOTE_REDUCE_H

#include "mote_types.h"

#define MOTE_REDUCE_MAX_DIMS 8

/* The input's dimensions split into kept ones (the output, in row-major order) and reduced ones, each
 * list with neighbours merged; shapes give extents and strides give input element strides. */
typedef struct {
  int32_t kept_rank;                   /* 1..MOTE_REDUCE_MAX_DIMS */
  const int32_t *kept_shape, *kept_strides;
  int32_t reduced_rank;                /* 1..MOTE_REDUCE_MAX_DIMS */
  const int32_t *reduced_shape, *reduced_strides;
} mote_reduce_params;

/* A quantized SUM's: the dimensions as above, then
 * out = clamp(requantize(sum + bias, multiplier, shift) + output_zero_point) to the output's type. */
typedef struct {
  int32_t kept_rank;
  const int32_t *kept_shape, *kept_strides;
  int32_t reduced_rank;
  const int32_t *reduced_shape, *reduced_strides;
  int32_t bias;                        /* -input zero point * (reduced elements) */
  int32_t multiplier, shift;           /* Q31, shift (> 0: left): s_in / s_out */
  int32_t output_zero_point;
} mote_reduce_quantized_params;

/* Advances a row-major multi-index over dims [0, count) of `shape`, keeping `offset` (in input
 * elements) in step. Returns 0 once every index has been visited. */
static inline int mote_reduce_next(int32_t count, const int32_t *shape, const int32_t *strides, int32_t *index,
                                   int32_t *offset) {
  for (int32_t d = count - 1; d >= 0; --d) {
    *offset += strides[d];
    if (++index[d] < shape[d]) return 1;
    *offset -= strides[d] * shape[d];
    index[d] = 0;
  }
  return 0;
}

/* Walks a reduction's outputs in order: for each, runs START, then ACCUMULATE once per reduced element with
 * `v` its value (of type T, read from `input`), then FINISH (which stores the result through `output`). */
#define MOTE_REDUCE_WALK(p, T, input, START, ACCUMULATE, FINISH)                                              \
  do {                                                                                                        \
    const int32_t last_ = (p)->reduced_rank - 1;                                                              \
    const int32_t n_ = (p)->reduced_shape[last_], step_ = (p)->reduced_strides[last_];                        \
    int32_t kept_index_[MOTE_REDUCE_MAX_DIMS] = {0};                                                          \
    int32_t kept_offset_ = 0;                                                                                 \
    do {                                                                                                      \
      int32_t index_[MOTE_REDUCE_MAX_DIMS] = {0};                                                             \
      int32_t offset_ = 0;                                                                                    \
      START;                                                                                                  \
      do {                                                                                                    \
        const T *row_ = (input) + kept_offset_ + offset_;                                                     \
        for (int32_t i_ = 0; i_ < n_; ++i_) {                                                                 \
          const T v = row_[i_ * step_];                                                                       \
          ACCUMULATE;                                                                                         \
        }                                                                                                     \
      } while (mote_reduce_next(last_, (p)->reduced_shape, (p)->reduced_strides, index_, &offset_));          \
      FINISH;                                                                                                 \
    } while (mote_reduce_next((p)->kept_rank, (p)->kept_shape, (p)->kept_strides, kept_index_, &kept_offset_)); \
  } while (0)

#endif

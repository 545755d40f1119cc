/* The int8 SVDF of TFLite Micro (see mote/ops/svdf.py), for a state of int8 (wide = 0) or int16 (wide = 1):
 * mote_svdf_s8_s8 and mote_svdf_s8_s16 call it with a constant, so each compiles to its own loop. */
#ifndef MOTE_SVDF_S8_H
#define MOTE_SVDF_S8_H

#include "mote_libc.h"

#include "mote_fixedpoint.h"
#include "mote_svdf_s8_params.h"

static inline int32_t mote_svdf_load(const void *base, int32_t i, int wide) {
  return wide ? ((const int16_t *)base)[i] : ((const int8_t *)base)[i];
}

static inline void mote_svdf_store(void *base, int32_t i, int32_t v, int wide) {
  if (wide) {
    ((int16_t *)base)[i] = (int16_t)v;
  } else {
    ((int8_t *)base)[i] = (int8_t)v;
  }
}

static inline void mote_svdf_s8(const mote_svdf_s8_params *p, const int8_t *input, void *state, int8_t *output,
                                int wide) {
  const int32_t memory = p->memory;
  const int32_t total = p->batches * p->filters * memory;
  const int32_t width = wide ? 2 : 1;
  /* the oldest frame drops out: the whole buffer moves one value left */
  memmove(state, (const int8_t *)state + width, (size_t)(total - 1) * (size_t)width);
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * p->input_size;
    for (int32_t f = 0; f < p->filters; ++f) {
      const int8_t *w = p->weights_feature + f * p->input_size;
      int32_t dot = 0;
      for (int32_t c = 0; c < p->input_size; ++c) dot += w[c] * (x[c] - p->input_zero_point);
      const int32_t v = mote_clamp(mote_requantize(dot, p->feature_multiplier, p->feature_shift), p->state_min,
                                   p->state_max);
      mote_svdf_store(state, (b * p->filters + f) * memory + memory - 1, p->state_zero_point + v, wide);
    }
  }
  const int32_t units = p->filters / p->rank;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t u = 0; u < units; ++u) {
      int32_t acc = p->bias[u];
      for (int32_t f = u * p->rank; f < (u + 1) * p->rank; ++f) {
        const int32_t row = (b * p->filters + f) * memory;
        for (int32_t j = 0; j < memory; ++j) {
          const int32_t s = mote_svdf_load(state, row + j, wide) - p->state_zero_point;
          acc = mote_add_wrap(acc, mote_svdf_load(p->weights_time, f * memory + j, wide) * s);
        }
      }
      const int32_t out = mote_add_wrap(mote_requantize(acc, p->time_multiplier, p->time_shift),
                                        p->output_zero_point);
      output[b * units + u] = (int8_t)mote_clamp(out, -128, 127);
    }
  }
}

#endif

#include "mote_svdf_f32.h"

#include "mote_libc.h"

/* std::fmax and std::fmin, which TFLite Micro's activations use: a NaN operand yields the other one. */
static float fmax_f32(float x, float y) { return (y != y || x >= y) ? x : y; }
static float fmin_f32(float x, float y) { return (y != y || x <= y) ? x : y; }

mote_status mote_svdf_f32(const mote_svdf_f32_params *p, const float *input, float *state, float *output,
                          mote_scratch scratch) {
  (void)scratch;
  const int32_t memory = p->memory;
  const int32_t total = p->batches * p->filters * memory;
  memmove(state, state + 1, (size_t)(total - 1) * sizeof(float));
  for (int32_t b = 0; b < p->batches; ++b) {
    const float *x = input + b * p->input_size;
    for (int32_t f = 0; f < p->filters; ++f) {
      const float *w = p->weights_feature + f * p->input_size;
      float dot = 0.0f;
      for (int32_t c = 0; c < p->input_size; ++c) dot += w[c] * x[c];
      state[(b * p->filters + f) * memory + memory - 1] = dot;
    }
  }
  const int32_t units = p->filters / p->rank;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t u = 0; u < units; ++u) {
      float acc = p->bias[u];
      for (int32_t f = u * p->rank; f < (u + 1) * p->rank; ++f) {
        const float *s = state + (b * p->filters + f) * memory;
        const float *w = p->weights_time + f * memory;
        float sum = 0.0f;
        for (int32_t j = 0; j < memory; ++j) sum += w[j] * s[j];
        acc += sum;
      }
      if (p->activation == 1) acc = fmax_f32(0.0f, acc);
      if (p->activation == 2) acc = fmax_f32(p->act_min, fmin_f32(acc, p->act_max));
      output[b * units + u] = acc;
    }
  }
  return MOTE_OK;
}

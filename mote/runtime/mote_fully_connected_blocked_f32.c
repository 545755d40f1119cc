#include "mote_fully_connected_blocked_f32.h"

#include "mote_float.h"

mote_status mote_fully_connected_blocked_f32(const mote_fully_connected_blocked_f32_params *p, const float *input,
                                             float *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const float *x = input + b * p->accum_depth;
    for (int32_t o = 0; o < p->out_depth; o += 4) {
      const float *w = p->weights + o * p->accum_depth;
      float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
      for (int32_t d = 0; d < p->accum_depth; ++d, w += 4) {
        const float u = x[d];
        a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
      }
      const float acc[4] = {a0, a1, a2, a3};
      const int32_t rows = p->out_depth - o < 4 ? p->out_depth - o : 4;
      for (int32_t j = 0; j < rows; ++j) {
        output[b * p->out_depth + o + j] = mote_clamp_f32(acc[j] + p->bias[o + j], p->act_min, p->act_max);
      }
    }
  }
  return MOTE_OK;
}

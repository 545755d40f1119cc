#include "mote_fully_connected_f32.h"

#include "mote_float.h"

/* Outputs [o0, o0 + n) of one input row (n <= MOTE_F32_BLOCK), summed in registers. */
static void fc_block(const mote_fully_connected_f32_params *p, const float *x, int32_t o0, int32_t n, float *out) {
  const int32_t outs = p->out_depth;
  const float *w = p->weights + o0;
  float acc[MOTE_F32_BLOCK] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  if (n == MOTE_F32_BLOCK) {
    for (int32_t d = 0; d < p->accum_depth; ++d, w += outs) {
      const float xd = x[d];
      for (int32_t j = 0; j < MOTE_F32_BLOCK; ++j) acc[j] += xd * w[j];
    }
  } else {
    for (int32_t d = 0; d < p->accum_depth; ++d, w += outs) {
      const float xd = x[d];
      for (int32_t j = 0; j < n; ++j) acc[j] += xd * w[j];
    }
  }
  for (int32_t j = 0; j < n; ++j) out[o0 + j] = mote_clamp_f32(acc[j] + p->bias[o0 + j], p->act_min, p->act_max);
}

mote_status mote_fully_connected_f32(const mote_fully_connected_f32_params *p, const float *input, float *output,
                                     mote_scratch scratch) {
  const int32_t outs = p->out_depth;
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t o0 = 0; o0 < outs; o0 += MOTE_F32_BLOCK) {
      const int32_t left = outs - o0;
      fc_block(p, input + b * p->accum_depth, o0, left < MOTE_F32_BLOCK ? left : MOTE_F32_BLOCK, output + b * outs);
    }
  }
  return MOTE_OK;
}

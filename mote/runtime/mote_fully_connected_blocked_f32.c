#include "mote_fully_connected_blocked_f32.h"

#define MOTE_BLOCKED_X float
#define MOTE_BLOCKED_W float
#define MOTE_BLOCKED_ACC float
#include "mote_fully_connected_blocked_body.h"

#include "mote_float.h"

/* The same for the n < 4 rows of a last block of four that exist (its zero rows would cost as many float
 * operations again on a core without an FPU): row j over w[4 * d + j]. */
static void rows_left(const float *x, const float *w, int32_t depth, int32_t n, float acc[8]) {
  for (int32_t j = 0; j < n; ++j) {
    float a = 0.0f;
    for (int32_t d = 0; d < depth; ++d) a += x[d] * w[4 * d + j];
    acc[j] = a;
  }
}

mote_status mote_fully_connected_blocked_f32(const mote_fully_connected_blocked_f32_params *p, const float *input,
                                             float *output, mote_scratch scratch) {
  const int32_t rows = (p->out_depth + 3) & ~3;  /* whole sets of four: eight at a time, then four */
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const float *x = input + b * p->accum_depth;
    for (int32_t o = 0; o < rows;) {
      float acc[8];
      const int32_t block = rows - o >= 8 ? 8 : 4;
      const int32_t n = p->out_depth - o < block ? p->out_depth - o : block;
      if (block == 8) {
        rows8(x, p->weights + o * p->accum_depth, p->accum_depth, acc);
      } else if (n == 4) {
        rows4(x, p->weights + o * p->accum_depth, p->accum_depth, acc);
      } else {
        rows_left(x, p->weights + o * p->accum_depth, p->accum_depth, n, acc);
      }
      for (int32_t j = 0; j < n; ++j) {
        output[b * p->out_depth + o + j] = mote_clamp_f32(acc[j] + p->bias[o + j], p->act_min, p->act_max);
      }
      o += block;
    }
  }
  return MOTE_OK;
}

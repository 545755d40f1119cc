#include "mote_fully_connected_blocked_f32.h"

#include "mote_float.h"

/* acc[j] = sum over d of x[d] * w[d][j] for eight rows, two terms a step. */
static void rows8(const float *x, const float *w, int32_t depth, float acc[8]) {
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
  int32_t d = 0;
  for (; d + 2 <= depth; d += 2, w += 16) {
    float u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    a4 += u * w[4], a5 += u * w[5], a6 += u * w[6], a7 += u * w[7];
    u = x[d + 1];
    a0 += u * w[8], a1 += u * w[9], a2 += u * w[10], a3 += u * w[11];
    a4 += u * w[12], a5 += u * w[13], a6 += u * w[14], a7 += u * w[15];
  }
  if (d < depth) {
    const float u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    a4 += u * w[4], a5 += u * w[5], a6 += u * w[6], a7 += u * w[7];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* The same for four rows. */
static void rows4(const float *x, const float *w, int32_t depth, float acc[8]) {
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  int32_t d = 0;
  for (; d + 2 <= depth; d += 2, w += 8) {
    float u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    u = x[d + 1];
    a0 += u * w[4], a1 += u * w[5], a2 += u * w[6], a3 += u * w[7];
  }
  if (d < depth) {
    const float u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

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

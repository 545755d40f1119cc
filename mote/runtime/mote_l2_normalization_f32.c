#include "mote_l2_normalization_f32.h"

#include "mote_sqrtf.h"

mote_status mote_l2_normalization_f32(const mote_rows_f32_params *p, const float *input, float *output,
                                      mote_scratch scratch) {
  (void)scratch;
  for (int32_t row = 0; row < p->rows; ++row) {
    const float *x = input + row * p->depth;
    float *y = output + row * p->depth;
    float squares = 0.0f;
    for (int32_t c = 0; c < p->depth; ++c) squares += x[c] * x[c];
    float norm = mote_sqrtf(squares);
    norm = norm < 1e-6f ? 1e-6f : norm; /* std::max(norm, 1e-6): a NaN stays */
    for (int32_t c = 0; c < p->depth; ++c) y[c] = x[c] / norm;
  }
  return MOTE_OK;
}

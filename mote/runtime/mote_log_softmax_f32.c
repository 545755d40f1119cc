#include "mote_log_softmax_f32.h"

#include "mote_expf.h"
#include "mote_logf.h"

mote_status mote_log_softmax_f32(const mote_rows_f32_params *p, const float *input, float *output,
                                 mote_scratch scratch) {
  (void)scratch;
  for (int32_t row = 0; row < p->rows; ++row) {
    const float *x = input + row * p->depth;
    float *y = output + row * p->depth;
    float top = x[0];
    for (int32_t c = 1; c < p->depth; ++c) top = x[c] > top ? x[c] : top;
    float sum = 0.0f;
    for (int32_t c = 0; c < p->depth; ++c) sum += mote_expf(x[c] - top);
    const float log_sum = mote_logf(sum);
    for (int32_t c = 0; c < p->depth; ++c) y[c] = (x[c] - top) - log_sum;
  }
  return MOTE_OK;
}

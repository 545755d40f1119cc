#include "mote_resize_bilinear_f32.h"

mote_status mote_resize_bilinear_f32(const mote_resize_bilinear_f32_params *p, const float *input, float *output,
                                     mote_scratch scratch) {
  (void)scratch;
  const int32_t c_n = p->channels, row = p->in_w * c_n;
  for (int32_t b = 0; b < p->batches; ++b) {
    const float *image = input + b * p->in_h * row;
    for (int32_t y = 0; y < p->out_h; ++y) {
      const float *top = image + p->row_low[y] * row, *bottom = image + p->row_high[y] * row;
      const float dy = p->row_weight[y], ey = p->row_complement[y];
      for (int32_t x = 0; x < p->out_w; ++x) {
        const int32_t left = p->col_low[x] * c_n, right = p->col_high[x] * c_n;
        const float dx = p->col_weight[x], ex = p->col_complement[x];
        for (int32_t c = 0; c < c_n; ++c) {
          /* the interpreter's expression, term by term; + 0.0f turns -0 into +0 as its rounding offset does */
          *output++ = top[left + c] * ey * ex + bottom[left + c] * dy * ex + top[right + c] * ey * dx +
                      bottom[right + c] * dy * dx + 0.0f;
        }
      }
    }
  }
  return MOTE_OK;
}

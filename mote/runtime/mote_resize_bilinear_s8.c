#include "mote_resize_bilinear_s8.h"

mote_status mote_resize_bilinear_s8(const mote_resize_bilinear_s8_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch) {
  (void)scratch;
  const int32_t c_n = p->channels, row = p->in_w * c_n;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * row;
    for (int32_t y = 0; y < p->out_h; ++y) {
      const int8_t *top = image + p->row_low[y] * row, *bottom = image + p->row_high[y] * row;
      const int64_t dy = p->row_weight[y] - (1 << 10) * p->row_low[y], ey = (1 << 10) - dy;
      for (int32_t x = 0; x < p->out_w; ++x) {
        const int32_t left = p->col_low[x] * c_n, right = p->col_high[x] * c_n;
        const int64_t dx = p->col_weight[x] - (1 << 10) * p->col_low[x], ex = (1 << 10) - dx;
        for (int32_t c = 0; c < c_n; ++c) {
          const int64_t total = top[left + c] * ey * ex + bottom[left + c] * dy * ex + top[right + c] * ey * dx +
                                bottom[right + c] * dy * dx;
          *output++ = (int8_t)((total + (total > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
        }
      }
    }
  }
  return MOTE_OK;
}

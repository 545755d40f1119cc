#include "mote_avg_pool_half_up_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_avg_pool_half_up_s8(const mote_pool_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch) {
  (void)scratch;
  const int32_t c_n = p->channels;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      const int32_t fy_lo = y0 < 0 ? -y0 : 0;
      const int32_t fy_hi = p->in_h - y0 < p->filter_h ? p->in_h - y0 : p->filter_h;
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t x0 = ox * p->stride_w - p->pad_left;
        const int32_t fx_lo = x0 < 0 ? -x0 : 0;
        const int32_t fx_hi = p->in_w - x0 < p->filter_w ? p->in_w - x0 : p->filter_w;
        if (fy_hi <= fy_lo || fx_hi <= fx_lo) return MOTE_ERROR;
        const int32_t count = (fy_hi - fy_lo) * (fx_hi - fx_lo);
        int8_t *out = output + ((b * p->out_h + oy) * p->out_w + ox) * c_n;
        for (int32_t c = 0; c < c_n; ++c) {
          int32_t sum = 128 * count; /* the uint8 values' sum: non-negative, at most filter_h * filter_w * 255 */
          for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
            const int32_t row = (b * p->in_h + y0 + fy) * p->in_w + x0;
            for (int32_t fx = fx_lo; fx < fx_hi; ++fx) sum += input[(row + fx) * c_n + c];
          }
          const int32_t mean = (sum + count / 2) / count - 128;
          out[c] = (int8_t)mote_clamp(mean, p->act_min, p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_avg_pool_s8.h"

#include "mote_fixedpoint.h"

/* The rounded mean of count values summing to sum (|sum| <= filter_h * filter_w * 128), clamped. */
static int8_t mean_of(int32_t sum, int32_t count, const mote_pool_params *p) {
  const int32_t mean = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  return (int8_t)mote_clamp(mean, p->act_min, p->act_max);
}

mote_status mote_avg_pool_s8(const mote_pool_params *p, const int8_t *input, int8_t *output,
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
        int32_t c = 0;
        for (; c + 4 <= c_n; c += 4) { /* four channels per pass: each byte loaded at a fixed offset */
          int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
            const int8_t *x = input + ((b * p->in_h + y0 + fy) * p->in_w + x0 + fx_lo) * c_n + c;
            for (int32_t fx = fx_lo; fx < fx_hi; ++fx, x += c_n) s0 += x[0], s1 += x[1], s2 += x[2], s3 += x[3];
          }
          out[c] = mean_of(s0, count, p), out[c + 1] = mean_of(s1, count, p);
          out[c + 2] = mean_of(s2, count, p), out[c + 3] = mean_of(s3, count, p);
        }
        for (; c < c_n; ++c) {
          int32_t sum = 0; /* |sum| <= filter_h * filter_w * 128 */
          for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
            const int32_t row = (b * p->in_h + y0 + fy) * p->in_w + x0;
            for (int32_t fx = fx_lo; fx < fx_hi; ++fx) sum += input[(row + fx) * c_n + c];
          }
          out[c] = mean_of(sum, count, p);
        }
      }
    }
  }
  return MOTE_OK;
}

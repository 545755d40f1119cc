#include "mote_conv_s16.h"

#include "mote_output_s16.h"

mote_status mote_conv_s16(const mote_conv_s16_params *p, const int16_t *input, int16_t *output,
                          mote_scratch scratch) {
  (void)scratch;
  const int32_t per_group = p->out_ch / (p->in_ch / p->filter_in_ch);
  for (int32_t n = 0; n < p->batches; ++n) {
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        int16_t *out = output + ((n * p->out_h + oy) * p->out_w + ox) * p->out_ch;
        for (int32_t oc = 0; oc < p->out_ch; ++oc) {
          const int32_t first = (oc / per_group) * p->filter_in_ch;
          int64_t acc = 0;
          for (int32_t ky = 0; ky < p->filter_h; ++ky) {
            const int32_t y = oy * p->stride_h - p->pad_top + ky * p->dilation_h;
            if (y < 0 || y >= p->in_h) continue;
            for (int32_t kx = 0; kx < p->filter_w; ++kx) {
              const int32_t x = ox * p->stride_w - p->pad_left + kx * p->dilation_w;
              if (x < 0 || x >= p->in_w) continue;
              const int16_t *in = input + ((n * p->in_h + y) * p->in_w + x) * p->in_ch + first;
              const int8_t *w = p->weights + ((oc * p->filter_h + ky) * p->filter_w + kx) * p->filter_in_ch;
              for (int32_t c = 0; c < p->filter_in_ch; ++c) acc += (int32_t)w[c] * in[c];
            }
          }
          out[oc] = mote_output_s16(acc + p->bias[oc], p->acc64, p->multiplier[oc], p->shift[oc], 0, p->act_min,
                                    p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

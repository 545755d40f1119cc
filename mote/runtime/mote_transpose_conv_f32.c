#include "mote_transpose_conv_f32.h"

mote_status mote_transpose_conv_f32(const mote_transpose_conv_f32_params *p, const float *input, float *output,
                                    mote_scratch scratch) {
  (void)scratch;
  const int32_t size = p->batches * p->out_h * p->out_w * p->out_ch;
  const int32_t step = p->filter_h * p->filter_w * p->in_ch;
  for (int32_t i = 0; i < size; ++i) output[i] = 0.0f;
  for (int32_t n = 0; n < p->batches; ++n) {
    for (int32_t iy = 0; iy < p->in_h; ++iy) {
      for (int32_t ix = 0; ix < p->in_w; ++ix) {
        for (int32_t ic = 0; ic < p->in_ch; ++ic) {
          const float value = input[((n * p->in_h + iy) * p->in_w + ix) * p->in_ch + ic];
          for (int32_t fy = 0; fy < p->filter_h; ++fy) {
            const int32_t oy = iy * p->stride_h - p->pad_top + fy;
            if (oy < 0 || oy >= p->out_h) continue;
            for (int32_t fx = 0; fx < p->filter_w; ++fx) {
              const int32_t ox = ix * p->stride_w - p->pad_left + fx;
              if (ox < 0 || ox >= p->out_w) continue;
              float *out = output + ((n * p->out_h + oy) * p->out_w + ox) * p->out_ch;
              const float *w = p->weights + (fy * p->filter_w + fx) * p->in_ch + ic;
              for (int32_t oc = 0; oc < p->out_ch; ++oc) out[oc] += value * w[oc * step];
            }
          }
        }
      }
    }
  }
  for (int32_t i = 0; i < size; ++i) {
    const float acc = output[i] + p->bias[i % p->out_ch];
    output[i] = acc < p->act_min ? p->act_min : (p->act_max < acc ? p->act_max : acc);
  }
  return MOTE_OK;
}

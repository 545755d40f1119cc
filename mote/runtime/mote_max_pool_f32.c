#include "mote_max_pool_f32.h"

#include <float.h>
#include "mote_float.h"

mote_status mote_max_pool_f32(const mote_pool_f32_params *p, const float *input, float *output,
                              mote_scratch scratch) {
  const int32_t channels = p->channels;
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      int32_t fy_lo, fy_hi;
      mote_pool_span(y0, p->filter_h, p->in_h, &fy_lo, &fy_hi);
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t x0 = ox * p->stride_w - p->pad_left;
        int32_t fx_lo, fx_hi;
        mote_pool_span(x0, p->filter_w, p->in_w, &fx_lo, &fx_hi);
        float *o = output + ((b * p->out_h + oy) * p->out_w + ox) * channels;
        for (int32_t c = 0; c < channels; ++c) o[c] = -FLT_MAX;
        for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
          for (int32_t fx = fx_lo; fx < fx_hi; ++fx) {
            const float *in = input + ((b * p->in_h + y0 + fy) * p->in_w + x0 + fx) * channels;
            for (int32_t c = 0; c < channels; ++c) o[c] = o[c] < in[c] ? in[c] : o[c];
          }
        }
        for (int32_t c = 0; c < channels; ++c) o[c] = mote_clamp_f32(o[c], p->act_min, p->act_max);
      }
    }
  }
  return MOTE_OK;
}

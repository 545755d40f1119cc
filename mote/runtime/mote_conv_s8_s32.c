#include "mote_conv_s8_s32.h"

mote_status mote_conv_s8_s32(const mote_conv_s32_params *p, const int8_t *input, int32_t *output,
                             mote_scratch scratch) {
  const int32_t groups = p->in_ch / p->filter_in_ch;
  const int32_t per_group = p->out_ch / groups;
  const int32_t taps = p->filter_h * p->filter_w * p->filter_in_ch;
  int32_t b, oy, ox, oc, fy, fx, ic;
  (void)scratch;
  for (b = 0; b < p->batches; ++b) {
    for (oy = 0; oy < p->out_h; ++oy) {
      for (ox = 0; ox < p->out_w; ++ox) {
        int32_t *out = output + ((b * p->out_h + oy) * p->out_w + ox) * p->out_ch;
        for (oc = 0; oc < p->out_ch; ++oc) {
          const int32_t first_ch = (oc / per_group) * p->filter_in_ch;
          const int8_t *w = p->weights + oc * taps;
          int32_t acc = p->bias ? p->bias[oc] : 0;
          for (fy = 0; fy < p->filter_h; ++fy) {
            const int32_t y = oy * p->stride_h - p->pad_top + fy * p->dilation_h;
            if (y < 0 || y >= p->in_h) continue;
            for (fx = 0; fx < p->filter_w; ++fx) {
              const int32_t x = ox * p->stride_w - p->pad_left + fx * p->dilation_w;
              const int8_t *in;
              const int8_t *wt;
              if (x < 0 || x >= p->in_w) continue;
              in = input + ((b * p->in_h + y) * p->in_w + x) * p->in_ch + first_ch;
              wt = w + (fy * p->filter_w + fx) * p->filter_in_ch;
              for (ic = 0; ic < p->filter_in_ch; ++ic) acc += wt[ic] * (in[ic] + p->input_offset);
            }
          }
          out[oc] = acc;
        }
      }
    }
  }
  return MOTE_OK;
}

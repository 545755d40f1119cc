#include "mote_depthwise_conv_channels_s8.h"

#include "mote_fixedpoint.h"

mote_status mote_depthwise_conv_channels_s8(const mote_depthwise_conv_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch) {
  const int32_t ch = p->in_ch;
  if (p->depth_multiplier != 1 || scratch.size < (size_t)ch * sizeof(int32_t)) return MOTE_ERROR;
  int32_t *acc = (int32_t *)(void *)scratch.buf;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * ch;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
        for (int32_t c = 0; c < ch; ++c) acc[c] = p->bias ? p->bias[c] : 0;
        for (int32_t fy = 0; fy < p->filter_h; ++fy) {
          const int32_t iy = y0 + fy * p->dilation_h;
          if (iy < 0 || iy >= p->in_h) continue;
          for (int32_t fx = 0; fx < p->filter_w; ++fx) {
            const int32_t ix = x0 + fx * p->dilation_w;
            if (ix < 0 || ix >= p->in_w) continue;
            const int8_t *x = image + (iy * p->in_w + ix) * ch;
            const int8_t *w = p->weights + (fy * p->filter_w + fx) * ch;
            for (int32_t c = 0; c < ch; ++c) acc[c] += w[c] * (x[c] + p->input_offset);
          }
        }
        int8_t *out = output + ((b * p->out_h + oy) * p->out_w + ox) * ch;
        for (int32_t c = 0; c < ch; ++c) {
          const int32_t y = mote_add_wrap(mote_requantize(acc[c], p->multiplier[c], p->shift[c]), p->output_offset);
          out[c] = (int8_t)mote_clamp(y, p->act_min, p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_depthwise_conv_blocked_f32.h"

#define MOTE_BLOCKED_X float
#define MOTE_BLOCKED_W float
#define MOTE_BLOCKED_ACC float
#define MOTE_BLOCKED_PARAMS mote_depthwise_conv_blocked_f32_params
#include "mote_depthwise_conv_blocked_body.h"

#include "mote_float.h"

mote_status mote_depthwise_conv_blocked_f32(const mote_depthwise_conv_blocked_f32_params *p, const float *input,
                                            float *output, mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t ch = g->in_ch, whole = ch & ~3, span = (g->filter_w - 1) * g->dilation_w;
  (void)scratch;
  if (g->out_ch != ch) return MOTE_ERROR;
  for (int32_t b = 0; b < g->batches; ++b) {
    const float *image = input + b * g->in_h * g->in_w * ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      int32_t fy0 = 0, fy1 = g->filter_h;  /* the filter rows inside the input */
      while (fy0 < fy1 && y0 + fy0 * g->dilation_h < 0) ++fy0;
      while (fy1 > fy0 && y0 + (fy1 - 1) * g->dilation_h >= g->in_h) --fy1;
      float *out_row = output + (b * g->out_h + oy) * g->out_w * ch;
      for (int32_t ox = 0; ox < g->out_w;) {
        const int32_t x0 = ox * g->stride_w - g->pad_left;
        /* four pixels whose windows lie inside the input across, or one pixel over its columns inside */
        const int32_t n = x0 >= 0 && ox + 3 < g->out_w && x0 + 3 * g->stride_w + span < g->in_w ? 4 : 1;
        int32_t fx0 = 0, fx1 = g->filter_w;
        while (fx0 < fx1 && x0 + fx0 * g->dilation_w < 0) ++fx0;
        while (fx1 > fx0 && x0 + (fx1 - 1) * g->dilation_w >= g->in_w) --fx1;
        block_taps t = {image + ((y0 + fy0 * g->dilation_h) * g->in_w + x0 + fx0 * g->dilation_w) * ch,
                        g->stride_w * ch, g->dilation_w * ch, g->dilation_h * g->in_w * ch,
                        p->weights + (fy0 * g->filter_w + fx0) * ch, ch, g->filter_w * ch, fy1 - fy0, fx1 - fx0};
        float *out = out_row + ox * ch;
        for (int32_t c = 0; c < whole; c += 4, t.in += 4, t.w += 4) {
          float acc[16];
          if (n == 4) {
            taps_4x4(&t, acc);
          } else {
            taps_1x4(&t, acc);
          }
          for (int32_t i = 0; i < n; ++i) {
            for (int32_t j = 0; j < 4; ++j) {
              out[i * ch + c + j] = mote_clamp_f32(acc[4 * i + j] + p->bias[c + j], p->act_min, p->act_max);
            }
          }
        }
        for (int32_t i = 0; i < n; ++i) {  /* channels past the last set of four */
          for (int32_t c = whole; c < ch; ++c) {
            const float sum = one_sum(p, image, y0, x0 + i * g->stride_w, fy0, fy1, c);
            out[i * ch + c] = mote_clamp_f32(sum + p->bias[c], p->act_min, p->act_max);
          }
        }
        ox += n;
      }
    }
  }
  return MOTE_OK;
}

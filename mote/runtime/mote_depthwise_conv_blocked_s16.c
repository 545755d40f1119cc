#include "mote_depthwise_conv_blocked_s16.h"

#define MOTE_BLOCKED_X int16_t
#define MOTE_BLOCKED_W int8_t
#define MOTE_BLOCKED_ACC int32_t
#define MOTE_BLOCKED_PARAMS mote_depthwise_conv_blocked_s16_params
#include "mote_depthwise_conv_blocked_body.h"

#include "mote_stage_s16.h"

mote_status mote_depthwise_conv_blocked_s16(const mote_depthwise_conv_blocked_s16_params *p, const int16_t *input,
                                            int16_t *output, mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t ch = g->in_ch, whole = ch & ~3, span = (g->filter_w - 1) * g->dilation_w;
  (void)scratch;
  if (g->out_ch != ch) return MOTE_ERROR;
  for (int32_t b = 0; b < g->batches; ++b) {
    const int16_t *image = input + b * g->in_h * g->in_w * ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      const int32_t y0 = oy * g->stride_h - g->pad_top;
      int32_t fy0 = 0, fy1 = g->filter_h;  /* the filter rows inside the input */
      while (fy0 < fy1 && y0 + fy0 * g->dilation_h < 0) ++fy0;
      while (fy1 > fy0 && y0 + (fy1 - 1) * g->dilation_h >= g->in_h) --fy1;
      int16_t *out_row = output + (b * g->out_h + oy) * g->out_w * ch;
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
        int16_t *out = out_row + ox * ch;
        for (int32_t c = 0; c < whole; c += 4, t.in += 4, t.w += 4) {
          int32_t acc[16];
          if (n == 4) {
            taps_4x4(&t, acc);
          } else {
            taps_1x4(&t, acc);
          }
          for (int32_t i = 0; i < n; ++i) {
            for (int32_t j = 0; j < 4; ++j) {
              const int32_t *row = p->stage + (c + j) * MOTE_STAGE_S16_ROW;
              out[i * ch + c + j] = mote_stage_s16(acc[4 * i + j], row, 0, p->act_min, p->act_max);
            }
          }
        }
        for (int32_t i = 0; i < n; ++i) {  /* channels past the last set of four */
          for (int32_t c = whole; c < ch; ++c) {
            const int32_t sum = one_sum(p, image, y0, x0 + i * g->stride_w, fy0, fy1, c);
            out[i * ch + c] = mote_stage_s16(sum, p->stage + c * MOTE_STAGE_S16_ROW, 0, p->act_min, p->act_max);
          }
        }
        ox += n;
      }
    }
  }
  return MOTE_OK;
}

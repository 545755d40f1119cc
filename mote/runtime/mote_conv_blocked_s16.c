#include "mote_conv_blocked_s16.h"

#define MOTE_BLOCKED_X int16_t
#define MOTE_BLOCKED_W int8_t
#define MOTE_BLOCKED_ACC int32_t
#define MOTE_BLOCKED_PARAMS mote_conv_blocked_s16_params
#include "mote_conv_blocked_body.h"

#include "mote_stage_s16.h"

mote_status mote_conv_blocked_s16(const mote_conv_blocked_s16_params *p, const int16_t *input, int16_t *output,
                                  mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const size_t plane = (size_t)p->plane_h * p->plane_w * g->in_ch;  /* 0: windows gathered from the image */
  if (scratch.size < (plane + (size_t)p->taps * 4) * sizeof(int16_t)) return MOTE_ERROR;
  int16_t *padded = (int16_t *)(void *)scratch.buf, *windows = padded + plane;
  const int32_t pixels = g->out_h * g->out_w;
  for (int32_t b = 0; b < g->batches; ++b) {
    const int16_t *image = input + b * g->in_h * g->in_w * g->in_ch;
    if (plane) pad_image(p, image, padded);
    int16_t *out_image = output + b * pixels * g->out_ch;
    for (int32_t p0 = 0; p0 < pixels; p0 += 4) {
      const int32_t count = pixels - p0 < 4 ? pixels - p0 : 4;
      int32_t oy[4], ox[4], rows[2];
      block_rows(g, p0, count, oy, ox, rows);
      if (plane) {
        gather_plane(p, padded, oy, ox, rows, windows);
      } else {
        for (int32_t i = 0; i < 4; ++i) gather(g, image, oy[i], ox[i], rows, windows + i);
      }
      const int32_t first = rows[0] * g->filter_w * g->in_ch, taps = rows[1] * g->filter_w * g->in_ch - first;
      for (int32_t oc = 0; oc < g->out_ch; oc += 4) {
        int32_t acc[16];
        dot_4x4(windows, p->weights + oc * p->taps + 4 * first, taps, acc);
        const int32_t channels = g->out_ch - oc < 4 ? g->out_ch - oc : 4;
        for (int32_t j = 0; j < channels; ++j) {
          const int32_t *row = p->stage + (oc + j) * MOTE_STAGE_S16_ROW;
          int16_t *out = out_image + p0 * g->out_ch + oc + j;
          for (int32_t i = 0; i < count; ++i) out[i * g->out_ch] = mote_stage_s16(acc[4 * i + j], row, 0, p->act_min,
                                                                                   p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

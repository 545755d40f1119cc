/* The int16 poolings (mote_max_pool_s16, mote_avg_pool_s16): one walk over the outputs, the window of
 * each clipped to the input. */
#ifndef MOTE_POOL_S16_H
#define MOTE_POOL_S16_H

#include "mote_max_pool_s8.h"

/* For every output (b, oy, ox, c): `window` points at channel c of the window's first in-bounds tap,
 * `rows` x `cols` taps in-bounds, a row `row_step` elements on from the last, a tap `channels` on; BODY
 * computes `value`, which goes to the output clamped to the activation range. */
#define MOTE_POOL_S16_WALK(p, input, output, BODY)                                                          \
  for (int32_t b = 0; b < (p)->batches; ++b) {                                                              \
    for (int32_t oy = 0; oy < (p)->out_h; ++oy) {                                                           \
      const int32_t y0 = oy * (p)->stride_h - (p)->pad_top;                                                 \
      const int32_t fy_lo = y0 < 0 ? -y0 : 0;                                                               \
      const int32_t fy_hi = (p)->in_h - y0 < (p)->filter_h ? (p)->in_h - y0 : (p)->filter_h;                \
      for (int32_t ox = 0; ox < (p)->out_w; ++ox) {                                                         \
        const int32_t x0 = ox * (p)->stride_w - (p)->pad_left;                                              \
        const int32_t fx_lo = x0 < 0 ? -x0 : 0;                                                             \
        const int32_t fx_hi = (p)->in_w - x0 < (p)->filter_w ? (p)->in_w - x0 : (p)->filter_w;             \
        const int32_t rows = fy_hi - fy_lo, cols = fx_hi - fx_lo, channels = (p)->channels;                 \
        const int32_t row_step = (p)->in_w * channels;                                                      \
        int16_t *out = (output) + ((b * (p)->out_h + oy) * (p)->out_w + ox) * channels;                     \
        for (int32_t c = 0; c < channels; ++c) {                                                            \
          const int16_t *window = (input) + ((b * (p)->in_h + y0 + fy_lo) * (p)->in_w + x0 + fx_lo) * channels + c; \
          int32_t value;                                                                                    \
          BODY                                                                                              \
          out[c] = (int16_t)mote_clamp(value, (p)->act_min, (p)->act_max);                                  \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  }

#endif

#include "mote_resize_nearest.h"

#include "mote_libc.h"

mote_status mote_resize_nearest(const mote_resize_nearest_params *p, const void *input, void *output,
                                mote_scratch scratch) {
  (void)scratch;
  const size_t pixel = (size_t)p->channels * (size_t)p->element_bytes;
  uint8_t *out = (uint8_t *)output;
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t y = 0; y < p->out_h; ++y) {
      const uint8_t *row = (const uint8_t *)input + (size_t)(b * p->in_h + p->row_low[y]) * (size_t)p->in_w * pixel;
      for (int32_t x = 0; x < p->out_w; ++x, out += pixel) memcpy(out, row + (size_t)p->col_low[x] * pixel, pixel);
    }
  }
  return MOTE_OK;
}

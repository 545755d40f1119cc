#include "mote_requantize_s32_s8.h"

#include "mote_conv_common.h"

mote_status mote_requantize_s32_s8(const mote_requantize_s32_params *p, const int32_t *input, int8_t *output,
                                   mote_scratch scratch) {
  (void)scratch;
  /* Locals: the int8 stores below could alias *p as far as the compiler knows. */
  const int32_t c_n = p->channels, out_h = p->out_h, out_w = p->out_w;
  const int32_t row_step = p->stride_h * p->in_w * c_n, col_step = p->stride_w * c_n;
  const int32_t lo = p->act_min, hi = p->act_max;
  const uint32_t offset = (uint32_t)p->output_offset;
  const int32_t *multiplier = p->multiplier, *left_mul = p->left_mul, *right_mul = p->right_mul;
  for (int32_t y = 0; y < out_h; ++y) {
    const int32_t *acc = input + y * row_step;
    for (int32_t x = 0; x < out_w; ++x, acc += col_step) {
      for (int32_t c = 0; c < c_n; ++c) {
        *output++ = mote_conv_requantize(acc[c], (uint32_t)multiplier[c], (uint32_t)left_mul[c],
                                         (uint32_t)right_mul[c], offset, lo, hi);
      }
    }
  }
  return MOTE_OK;
}

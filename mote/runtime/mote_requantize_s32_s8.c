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
  /* Channel by channel, so that each channel's output stage stays in registers. */
  for (int32_t c = 0; c < c_n; ++c) {
    const uint32_t multiplier = (uint32_t)p->multiplier[c];
    const uint32_t left_mul = (uint32_t)p->left_mul[c], right_mul = (uint32_t)p->right_mul[c];
    int8_t *out = output + c;
    for (int32_t y = 0; y < out_h; ++y) {
      const int32_t *acc = input + y * row_step + c;
      int32_t x = 0;
      for (; x + 2 <= out_w; x += 2, acc += 2 * col_step, out += 2 * c_n) { /* two per step: less loop overhead */
        out[0] = mote_conv_requantize(acc[0], multiplier, left_mul, right_mul, offset, lo, hi);
        out[c_n] = mote_conv_requantize(acc[col_step], multiplier, left_mul, right_mul, offset, lo, hi);
      }
      if (x < out_w) {
        *out = mote_conv_requantize(*acc, multiplier, left_mul, right_mul, offset, lo, hi);
        out += c_n;
      }
    }
  }
  return MOTE_OK;
}

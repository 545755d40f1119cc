#include "mote_transpose_conv_s8.h"

#include "mote_libc.h"

#include "mote_fixedpoint.h"

mote_status mote_transpose_conv_s8(const mote_transpose_conv_int_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch) {
  const int32_t size = p->batches * p->out_h * p->out_w * p->out_ch;
  int32_t *acc = (int32_t *)(void *)scratch.buf;
  if (scratch.size < (size_t)size * sizeof(int32_t)) return MOTE_ERROR;
  memset(acc, 0, (size_t)size * sizeof(int32_t));
  MOTE_TRANSPOSE_CONV_SCATTER(p, input, acc, int32_t)
  for (int32_t i = 0; i < size; ++i) {
    const int32_t c = i % p->out_ch;
    const int32_t sum = mote_add_wrap(acc[i], (int32_t)p->bias[c]);
    const int32_t out = mote_add_wrap(mote_requantize(sum, p->multiplier[c], p->shift[c]), p->output_offset);
    output[i] = (int8_t)mote_clamp(out, p->act_min, p->act_max);
  }
  return MOTE_OK;
}

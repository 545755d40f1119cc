#include "mote_transpose_conv_s16.h"

#include "mote_libc.h"

#include "mote_fixedpoint.h"

mote_status mote_transpose_conv_s16(const mote_transpose_conv_int_params *p, const int16_t *input, int16_t *output,
                                    mote_scratch scratch) {
  const int32_t size = p->batches * p->out_h * p->out_w * p->out_ch;
  int64_t *acc = (int64_t *)(void *)scratch.buf;
  if (scratch.size < (size_t)size * sizeof(int64_t)) return MOTE_ERROR;
  memset(acc, 0, (size_t)size * sizeof(int64_t));
  MOTE_TRANSPOSE_CONV_SCATTER(p, input, acc, int64_t)
  for (int32_t i = 0; i < size; ++i) {
    const int32_t c = i % p->out_ch;
    const int32_t out = mote_requantize64(acc[i] + p->bias[c], p->multiplier[c], p->shift[c]);
    output[i] = (int16_t)mote_clamp(out, p->act_min, p->act_max);
  }
  return MOTE_OK;
}

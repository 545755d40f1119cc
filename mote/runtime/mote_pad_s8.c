#include "mote_pad_s8.h"

#include <string.h>

mote_status mote_pad_s8(const mote_pad_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  const int32_t *in = p->in_shape, *out = p->out_shape, *before = p->before;
  size_t total = 1;
  int32_t d, i0, i1, i2, i3;
  (void)scratch;
  for (d = 0; d < MOTE_PAD_DIMS; ++d) total *= (size_t)out[d];
  memset(output, p->pad_value, total);
  /* Copy the input one innermost row at a time. */
  for (i0 = 0; i0 < in[0]; ++i0) {
    for (i1 = 0; i1 < in[1]; ++i1) {
      for (i2 = 0; i2 < in[2]; ++i2) {
        for (i3 = 0; i3 < in[3]; ++i3) {
          const size_t row = (((size_t)(i0 + before[0]) * (size_t)out[1] + (size_t)(i1 + before[1])) * (size_t)out[2] +
                              (size_t)(i2 + before[2])) * (size_t)out[3] + (size_t)(i3 + before[3]);
          memcpy(output + row * (size_t)out[4] + (size_t)before[4], input, (size_t)in[4]);
          input += in[4];
        }
      }
    }
  }
  return MOTE_OK;
}

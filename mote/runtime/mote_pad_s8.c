#include "mote_pad_s8.h"

#include "mote_libc.h"

/* Whether output index o of a dimension lies over the input: before <= o < before + in. */
static int over_input(int32_t o, int32_t before, int32_t in) {
  return o >= before && o < before + in;
}

mote_status mote_pad_s8(const mote_pad_params *p, const int8_t *input, int8_t *output, mote_scratch scratch) {
  const int32_t *in = p->in_shape, *out = p->out_shape, *before = p->before;
  const int pad = p->pad_value;
  const size_t row = (size_t)out[4], lead = (size_t)before[4], copied = (size_t)in[4];
  (void)scratch;
  /* Output rows (the innermost dimension) in order: a row over the input is its leading padding,
   * the next input row and its trailing padding; any other row is all padding. Every byte is
   * written once. */
  for (int32_t i0 = 0; i0 < out[0]; ++i0) {
    const int in0 = over_input(i0, before[0], in[0]);
    for (int32_t i1 = 0; i1 < out[1]; ++i1) {
      const int in1 = in0 && over_input(i1, before[1], in[1]);
      for (int32_t i2 = 0; i2 < out[2]; ++i2) {
        const int in2 = in1 && over_input(i2, before[2], in[2]);
        for (int32_t i3 = 0; i3 < out[3]; ++i3, output += row) {
          if (!(in2 && over_input(i3, before[3], in[3]))) {
            memset(output, pad, row);
            continue;
          }
          /* The leading and trailing padding of a row is usually a byte or two: a call costs more. */
          for (size_t i = 0; i < lead; ++i) output[i] = (int8_t)pad;
          memcpy(output + lead, input, copied);
          for (size_t i = lead + copied; i < row; ++i) output[i] = (int8_t)pad;
          input += copied;
        }
      }
    }
  }
  return MOTE_OK;
}

#include "mote_fully_connected_s8.h"

#include "mote_conv_common.h"

/* One input row x by every weight row. n16 = accum_depth & ~15 (see mote_conv_common.h). Each
 * |acc| <= |bias| + depth * 128 * (128 + |filter_offset|) < 2^31 (checked at compile time). */
static void one_row(const mote_fully_connected_params *p, const mote_conv_output_stage *s, const int8_t *x, int32_t n16,
                    int8_t *out) {
  const int32_t n = p->accum_depth, m = p->out_depth;
  const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
  int32_t o = 0;
  for (; o + 16 <= m; o += 16) {
    int32_t acc[16];
    for (int32_t j = 0; j < 16; j += 4) {
      const int8_t *w0 = p->weights + (o + j) * n;
      int32_t a[4] = {p->bias[o + j] + base, p->bias[o + j + 1] + base, p->bias[o + j + 2] + base,
                      p->bias[o + j + 3] + base};
      mote_dot_1x4(x, w0, w0 + n, w0 + 2 * n, w0 + 3 * n, n, n16, a);
      acc[j] = a[0], acc[j + 1] = a[1], acc[j + 2] = a[2], acc[j + 3] = a[3];
    }
    mote_conv_output16(s, acc, o, out + o);
  }
  for (; o + 4 <= m; o += 4) {
    const int8_t *w0 = p->weights + o * n;
    int32_t a[4] = {p->bias[o] + base, p->bias[o + 1] + base, p->bias[o + 2] + base, p->bias[o + 3] + base};
    mote_dot_1x4(x, w0, w0 + n, w0 + 2 * n, w0 + 3 * n, n, n16, a);
    for (int32_t j = 0; j < 4; ++j) out[o + j] = mote_conv_output(s, a[j], o + j);
  }
  for (; o < m; ++o) out[o] = mote_conv_output(s, p->bias[o] + base + mote_dot_1x1(x, p->weights + o * n, n, n16), o);
}

mote_status mote_fully_connected_s8(const mote_fully_connected_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch) {
  (void)scratch;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t n16 = p->accum_depth & ~15;
  for (int32_t b = 0; b < p->batches; ++b) one_row(p, &s, input + b * p->accum_depth, n16, output + b * p->out_depth);
  return MOTE_OK;
}

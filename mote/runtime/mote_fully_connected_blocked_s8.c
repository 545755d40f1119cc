#include "mote_fully_connected_blocked_s8.h"

#include "mote_conv_common.h"

/* acc[j] += sum_d x[d] * w[16 d + j], j < 16, n > 0. Each |acc| <= |bias| + accum_depth * 128 *
 * (128 + |filter_offset|) < 2^31 (checked at compile time). */
static inline void dot_1x16(const int8_t *x, const int8_t *w, int32_t n, int32_t acc[16]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6];
  int32_t a7 = acc[7], a8 = acc[8], a9 = acc[9], a10 = acc[10], a11 = acc[11], a12 = acc[12];
  int32_t a13 = acc[13], a14 = acc[14], a15 = acc[15];
  const int8_t *end = x + n;
  do {
    const int32_t u = *x++;
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    a4 += u * w[4], a5 += u * w[5], a6 += u * w[6], a7 += u * w[7];
    a8 += u * w[8], a9 += u * w[9], a10 += u * w[10], a11 += u * w[11];
    a12 += u * w[12], a13 += u * w[13], a14 += u * w[14], a15 += u * w[15];
    w += 16;
  } while (x != end);
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
  acc[8] = a8, acc[9] = a9, acc[10] = a10, acc[11] = a11, acc[12] = a12, acc[13] = a13, acc[14] = a14;
  acc[15] = a15;
}

mote_status mote_fully_connected_blocked_s8(const mote_fully_connected_blocked_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t n = p->accum_depth, m = p->out_depth;
  if (n <= 0) return MOTE_ERROR;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *x = input + b * n;
    int8_t *out = output + b * m;
    const int32_t base = mote_filter_offset_term(p->filter_offset, x, n);
    for (int32_t o = 0; o < m; o += 16) {
      int32_t acc[16];
      for (int32_t j = 0; j < 16; ++j) acc[j] = p->bias[o + j] + base;
      dot_1x16(x, p->weights + o * n, n, acc);
      const int32_t rows = m - o < 16 ? m - o : 16;
      for (int32_t j = 0; j < rows; ++j) out[o + j] = mote_conv_output(&s, acc[j], o + j);
    }
  }
  return MOTE_OK;
}

#include "mote_conv_1x1_s8.h"

#include "mote_conv_common.h"

/* Four pixels (rows of n = in_ch bytes, n apart) by every output channel. n16 = n & ~15. */
static void four_pixels(const mote_conv_1x1_params *p, const mote_conv_output_stage *s, const int8_t *x, int32_t n16,
                        int8_t *out) {
  const int32_t n = p->in_ch, m = p->out_ch;
  const int8_t *x0 = x, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
  int32_t oc = 0;
  for (; oc + 16 <= m; oc += 16) {
    int32_t acc[4][16];
    for (int32_t q = 0; q < 16; q += 2) {
      const int8_t *w0 = p->weights + (oc + q) * n;
      /* Each |a| <= |bias| + in_ch * 2^14 < 2^31 (checked when the bias was folded). */
      int32_t a[8];
      a[0] = a[2] = a[4] = a[6] = p->bias[oc + q];
      a[1] = a[3] = a[5] = a[7] = p->bias[oc + q + 1];
      mote_dot_4x2(x0, x1, x2, x3, w0, w0 + n, n, n16, a);
      for (int32_t i = 0; i < 4; ++i) acc[i][q] = a[2 * i], acc[i][q + 1] = a[2 * i + 1];
    }
    for (int32_t i = 0; i < 4; ++i) mote_conv_output16(s, acc[i], oc, out + i * m + oc);
  }
  for (; oc < m; oc += 2) { /* the last out_ch % 16 channels; an odd last one is computed twice */
    const int32_t oc1 = oc + 1 < m ? oc + 1 : oc;
    int32_t a[8]; /* bounded as above */
    a[0] = a[2] = a[4] = a[6] = p->bias[oc];
    a[1] = a[3] = a[5] = a[7] = p->bias[oc1];
    mote_dot_4x2(x0, x1, x2, x3, p->weights + oc * n, p->weights + oc1 * n, n, n16, a);
    for (int32_t i = 0; i < 4; ++i) {
      out[i * m + oc] = mote_conv_output(s, a[2 * i], oc);
      out[i * m + oc1] = mote_conv_output(s, a[2 * i + 1], oc1);
    }
  }
}

/* One pixel by every output channel, four channels per dot product: the last pixels % 4. */
static void one_pixel(const mote_conv_1x1_params *p, const mote_conv_output_stage *s, const int8_t *x, int32_t n16,
                      int8_t *out) {
  const int32_t n = p->in_ch, m = p->out_ch;
  for (int32_t oc = 0; oc < m; oc += 4) {
    int32_t q[4];
    for (int32_t j = 0; j < 4; ++j) q[j] = oc + j < m ? oc + j : oc; /* the last quad may repeat oc */
    int32_t a[4] = {p->bias[q[0]], p->bias[q[1]], p->bias[q[2]], p->bias[q[3]]}; /* bounded as above */
    mote_dot_1x4(x, p->weights + q[0] * n, p->weights + q[1] * n, p->weights + q[2] * n, p->weights + q[3] * n,
                 n, n16, a);
    for (int32_t j = 0; j < 4 && oc + j < m; ++j) out[oc + j] = mote_conv_output(s, a[j], oc + j);
  }
}

mote_status mote_conv_1x1_s8(const mote_conv_1x1_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch) {
  (void)scratch;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t n16 = p->in_ch & ~15;
  int32_t px = 0;
  for (; px + 3 < p->pixels; px += 4) four_pixels(p, &s, input + px * p->in_ch, n16, output + px * p->out_ch);
  for (; px < p->pixels; ++px) one_pixel(p, &s, input + px * p->in_ch, n16, output + px * p->out_ch);
  return MOTE_OK;
}

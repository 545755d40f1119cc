#include "mote_depthwise_conv_3x3_s8.h"

#include "mote_conv_common.h"

/* Weights of channels [c, c + 16), c a multiple of 16: tap t at k[16 t + j]. */
static inline const int8_t *block_weights(const mote_depthwise_conv_3x3_params *p, int32_t c) {
  return p->weights + 9 * c;
}

/* Weight of tap t for a channel c >= in_ch & ~15 (the last, partial block: [9][in_ch % 16]). */
static inline int32_t tail_weight(const mote_depthwise_conv_3x3_params *p, int32_t c16, int32_t t, int32_t c) {
  return p->weights[9 * c16 + t * (p->in_ch - c16) + (c - c16)];
}

/* The last in_ch % 16 channels (from c16) of a pixel whose window lies inside the input (`in`: its
 * top-left tap, channel 0), one at a time; bounded as below. */
static void interior_tail(const mote_depthwise_conv_3x3_params *p, const mote_conv_output_stage *s, const int8_t *in,
                          int32_t c16, int8_t *out) {
  const int32_t n = p->in_ch, row = p->in_w * n;
  for (int32_t c = c16; c < n; ++c) {
    const int8_t *x = in + c, *k = p->weights + 9 * c16 + (c - c16);
    const int32_t r = n - c16; /* tail weights: [9][r] */
    int32_t a = p->folded_bias[c];
    a += x[0] * k[0] + x[n] * k[r] + x[2 * n] * k[2 * r];
    x += row;
    a += x[0] * k[3 * r] + x[n] * k[4 * r] + x[2 * n] * k[5 * r];
    x += row;
    a += x[0] * k[6 * r] + x[n] * k[7 * r] + x[2 * n] * k[8 * r];
    out[c] = mote_conv_output(s, a, c);
  }
}

/* A pixel whose 3x3 window lies inside the input; `in` points at its top-left tap, channel 0.
 * The input offset is in folded_bias, so each tap is a bare product of int8 values: every
 * |acc| <= |folded_bias| + 9 * 2^14 < 2^31 (checked at compile time). c16 = in_ch & ~15. */
static void interior_pixel(const mote_depthwise_conv_3x3_params *p, const mote_conv_output_stage *s, const int8_t *in,
                           int32_t c16, int8_t *out) {
  const int32_t n = p->in_ch, row = p->in_w * n;
  int32_t c = 0;
  for (; c < c16; c += 16) {
    const int8_t *x0 = in + c, *x3 = x0 + row, *x6 = x3 + row;
    const int8_t *x1 = x0 + n, *x4 = x3 + n, *x7 = x6 + n;
    const int8_t *x2 = x1 + n, *x5 = x4 + n, *x8 = x7 + n;
    const int8_t *k = block_weights(p, c);
    const int32_t *bias = p->folded_bias + c;
    int32_t acc[16];
    for (int32_t j = 0; j < 16; ++j) {
      int32_t a = bias[j];
      a += x0[j] * k[j] + x1[j] * k[16 + j] + x2[j] * k[32 + j];
      a += x3[j] * k[48 + j] + x4[j] * k[64 + j] + x5[j] * k[80 + j];
      a += x6[j] * k[96 + j] + x7[j] * k[112 + j] + x8[j] * k[128 + j];
      acc[j] = a;
    }
    mote_conv_output16(s, acc, c, out + c);
  }
  if (c < n) interior_tail(p, s, in, c16, out);
}

/* Two horizontally adjacent interior pixels with stride_w == 1: their windows share six of their
 * nine taps, so each input byte loaded serves both (bounded as above). */
static void interior_pair(const mote_depthwise_conv_3x3_params *p, const mote_conv_output_stage *s, const int8_t *in,
                          int32_t c16, int8_t *out) {
  const int32_t n = p->in_ch, row = p->in_w * n;
  int32_t c = 0;
  for (; c < c16; c += 16) {
    const int8_t *x0 = in + c, *x4 = x0 + row, *x8 = x4 + row; /* rows 0..2, columns 0..3 */
    const int8_t *x1 = x0 + n, *x5 = x4 + n, *x9 = x8 + n;
    const int8_t *x2 = x1 + n, *x6 = x5 + n, *x10 = x9 + n;
    const int8_t *x3 = x2 + n, *x7 = x6 + n, *x11 = x10 + n;
    const int8_t *k = block_weights(p, c);
    const int32_t *bias = p->folded_bias + c;
    int32_t acc0[16], acc1[16];
    for (int32_t j = 0; j < 16; ++j) {
      const int32_t k0 = k[j], k1 = k[16 + j], k2 = k[32 + j], k3 = k[48 + j], k4 = k[64 + j];
      const int32_t k5 = k[80 + j], k6 = k[96 + j], k7 = k[112 + j], k8 = k[128 + j];
      const int32_t u1 = x1[j], u2 = x2[j], u5 = x5[j], u6 = x6[j], u9 = x9[j], u10 = x10[j];
      int32_t a = bias[j], b = bias[j];
      a += x0[j] * k0 + u1 * k1 + u2 * k2 + x4[j] * k3 + u5 * k4 + u6 * k5 + x8[j] * k6 + u9 * k7 + u10 * k8;
      b += u1 * k0 + u2 * k1 + x3[j] * k2 + u5 * k3 + u6 * k4 + x7[j] * k5 + u9 * k6 + u10 * k7 + x11[j] * k8;
      acc0[j] = a;
      acc1[j] = b;
    }
    mote_conv_output16(s, acc0, c, out + c);
    mote_conv_output16(s, acc1, c, out + n + c);
  }
  if (c < n) { /* the last in_ch % 16 channels, one pixel at a time */
    interior_tail(p, s, in, c16, out);
    interior_tail(p, s, in + n, c16, out + n);
  }
}

/* A pixel whose window leaves the input: only the in-bounds taps count, with the input offset:
 * every |acc| <= |bias| + 9 * 255 * 128 < 2^31 (checked at compile time). */
static void border_pixel(const mote_depthwise_conv_3x3_params *p, const mote_conv_output_stage *s, const int8_t *image,
                         int32_t y0, int32_t x0, int32_t c16, int8_t *out) {
  const int32_t n = p->in_ch;
  const int32_t fy_lo = y0 < 0 ? -y0 : 0, fy_hi = p->in_h - y0 < 3 ? p->in_h - y0 : 3;
  const int32_t fx_lo = x0 < 0 ? -x0 : 0, fx_hi = p->in_w - x0 < 3 ? p->in_w - x0 : 3;
  const int16_t offset = (int16_t)p->input_offset;
  int32_t c = 0;
  for (; c < c16; c += 16) {
    int32_t acc[16];
    for (int32_t j = 0; j < 16; ++j) acc[j] = p->bias ? p->bias[c + j] : 0;
    for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
      for (int32_t fx = fx_lo; fx < fx_hi; ++fx) {
        const int8_t *x = image + ((y0 + fy) * p->in_w + x0 + fx) * n + c;
        const int8_t *k = block_weights(p, c) + 16 * (fy * 3 + fx);
        for (int32_t j = 0; j < 16; ++j) acc[j] += (int16_t)(x[j] + offset) * k[j];
      }
    }
    mote_conv_output16(s, acc, c, out + c);
  }
  for (; c < n; ++c) {
    int32_t acc = p->bias ? p->bias[c] : 0;
    for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
      for (int32_t fx = fx_lo; fx < fx_hi; ++fx) {
        const int32_t x = image[((y0 + fy) * p->in_w + x0 + fx) * n + c];
        acc += (x + p->input_offset) * tail_weight(p, c16, fy * 3 + fx, c);
      }
    }
    out[c] = mote_conv_output(s, acc, c);
  }
}

mote_status mote_depthwise_conv_3x3_s8(const mote_depthwise_conv_3x3_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch) {
  (void)scratch;
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  const int32_t n = p->in_ch;
  const int32_t c16 = n & ~15;
  const int32_t pair = p->stride_w == 1 ? 2 : p->out_w + 1; /* pixels per interior step: pairs at stride 1 */
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * n;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      const int inside_rows = oy >= p->interior_y0 && oy < p->interior_y1;
      const int32_t x_lo = inside_rows ? p->interior_x0 : p->out_w;
      const int32_t x_hi = inside_rows ? p->interior_x1 : p->out_w;
      int8_t *out_row = output + (b * p->out_h + oy) * p->out_w * n;
      int32_t ox = 0;
      for (; ox < x_lo; ++ox) border_pixel(p, &s, image, y0, ox * p->stride_w - p->pad_left, c16, out_row + ox * n);
      for (; ox + pair <= x_hi; ox += 2) {
        interior_pair(p, &s, image + (y0 * p->in_w + ox - p->pad_left) * n, c16, out_row + ox * n);
      }
      for (; ox < x_hi; ++ox) {
        const int8_t *in = image + (y0 * p->in_w + ox * p->stride_w - p->pad_left) * n;
        interior_pixel(p, &s, in, c16, out_row + ox * n);
      }
      for (; ox < p->out_w; ++ox) border_pixel(p, &s, image, y0, ox * p->stride_w - p->pad_left, c16, out_row + ox * n);
    }
  }
  return MOTE_OK;
}

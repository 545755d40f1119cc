#include "mote_depthwise_conv_3x3_s8.h"

#include "mote_fixedpoint.h"

static int8_t finish(const mote_depthwise_conv_3x3_params *p, int32_t acc, int32_t c) {
  acc = mote_requantize(acc, p->multiplier[c], p->shift[c]) + p->output_offset;
  return (int8_t)mote_clamp(acc, p->act_min, p->act_max);
}

/* A pixel whose 3x3 window lies inside the input; `in` points at its top-left tap, channel 0.
 * The input offset is already in folded_bias, so each tap is a bare product. */
static void interior_pixel(const mote_depthwise_conv_3x3_params *p, const int8_t *in, int8_t *out) {
  const int32_t c_n = p->in_ch;
  const int32_t row = p->in_w * c_n;
  const int8_t *w = p->weights;
  for (int32_t c = 0; c < c_n; ++c) {
    const int8_t *r0 = in + c;
    const int8_t *r1 = r0 + row;
    const int8_t *r2 = r1 + row;
    const int8_t *k = w + c;
    int32_t acc = p->folded_bias[c]; /* |acc| <= |folded_bias| + 9 * 128 * 128 < 2^31 (checked at compile time) */
    acc += (int32_t)r0[0] * k[0] + (int32_t)r0[c_n] * k[c_n] + (int32_t)r0[2 * c_n] * k[2 * c_n];
    acc += (int32_t)r1[0] * k[3 * c_n] + (int32_t)r1[c_n] * k[4 * c_n] + (int32_t)r1[2 * c_n] * k[5 * c_n];
    acc += (int32_t)r2[0] * k[6 * c_n] + (int32_t)r2[c_n] * k[7 * c_n] + (int32_t)r2[2 * c_n] * k[8 * c_n];
    out[c] = finish(p, acc, c);
  }
}

/* A pixel whose window leaves the input: only the in-bounds taps count, with the input offset. */
static void border_pixel(const mote_depthwise_conv_3x3_params *p, const int8_t *image, int32_t y0, int32_t x0,
                         int8_t *out) {
  const int32_t c_n = p->in_ch;
  const int32_t fy_lo = y0 < 0 ? -y0 : 0, fy_hi = p->in_h - y0 < 3 ? p->in_h - y0 : 3;
  const int32_t fx_lo = x0 < 0 ? -x0 : 0, fx_hi = p->in_w - x0 < 3 ? p->in_w - x0 : 3;
  for (int32_t c = 0; c < c_n; ++c) {
    int32_t acc = p->bias ? p->bias[c] : 0; /* |acc| <= |bias| + 9 * 128 * 255 */
    for (int32_t fy = fy_lo; fy < fy_hi; ++fy) {
      const int32_t row = (y0 + fy) * p->in_w + x0;
      for (int32_t fx = fx_lo; fx < fx_hi; ++fx) {
        const int32_t x = image[(row + fx) * c_n + c];
        acc += (int32_t)p->weights[(fy * 3 + fx) * c_n + c] * (x + p->input_offset);
      }
    }
    out[c] = finish(p, acc, c);
  }
}

mote_status mote_depthwise_conv_3x3_s8(const mote_depthwise_conv_3x3_params *p, const int8_t *input,
                                       int8_t *output, mote_scratch scratch) {
  (void)scratch;
  const int32_t c_n = p->in_ch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * c_n;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      const int inside_rows = oy >= p->interior_y0 && oy < p->interior_y1;
      const int32_t x_lo = inside_rows ? p->interior_x0 : p->out_w;
      const int32_t x_hi = inside_rows ? p->interior_x1 : p->out_w;
      int8_t *out_row = output + (b * p->out_h + oy) * p->out_w * c_n;
      int32_t ox = 0;
      for (; ox < x_lo; ++ox) border_pixel(p, image, y0, ox * p->stride_w - p->pad_left, out_row + ox * c_n);
      for (; ox < x_hi; ++ox) {
        const int8_t *in = image + (y0 * p->in_w + ox * p->stride_w - p->pad_left) * c_n;
        interior_pixel(p, in, out_row + ox * c_n);
      }
      for (; ox < p->out_w; ++ox) border_pixel(p, image, y0, ox * p->stride_w - p->pad_left, out_row + ox * c_n);
    }
  }
  return MOTE_OK;
}

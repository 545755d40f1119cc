#include "mote_depthwise_conv_multiplier_s8.h"

#include "mote_fixedpoint.h"

/* The first and one past the last filter index whose tap lands inside [0, extent), for a window starting
 * at `start` with taps every `step`. */
static void mote_inside(int32_t start, int32_t step, int32_t taps, int32_t extent, int32_t *first, int32_t *end) {
  *first = start < 0 ? (-start + step - 1) / step : 0;
  const int32_t room = extent - start; /* taps at start + k * step < extent */
  *end = room <= 0 ? 0 : (room + step - 1) / step;
  if (*end > taps) *end = taps;
  if (*first > *end) *first = *end;
}

/* The requantized outputs of accumulators acc[0 .. count - 1], for output channels oc0 onwards. */
static void mote_store(const mote_depthwise_conv_params *p, const int32_t *acc, int32_t oc0, int32_t count,
                       int8_t *out) {
  for (int32_t j = 0; j < count; ++j) {
    const int32_t y = mote_add_wrap(mote_requantize(acc[j], p->multiplier[oc0 + j], p->shift[oc0 + j]),
                                    p->output_offset);
    out[oc0 + j] = (int8_t)mote_clamp(y, p->act_min, p->act_max);
  }
}

/* Up to eight outputs of one pixel: output channels oc0 .. oc0 + count - 1, which all read the input
 * channel at `x` (the window's first tap inside the input), with their weights at `w`. */
static void mote_block(const mote_depthwise_conv_params *p, const int8_t *x, const int8_t *w, int32_t rows,
                       int32_t cols, int32_t oc0, int32_t count, int8_t *out) {
  const int32_t ch = p->in_ch, oc = ch * p->depth_multiplier, offset = p->input_offset;
  const int32_t x_step = p->dilation_w * ch, x_row = p->dilation_h * p->in_w * ch, w_row = p->filter_w * oc;
  int32_t acc[8];
  for (int32_t j = 0; j < count; ++j) acc[j] = p->bias ? p->bias[oc0 + j] : 0;
  if (count == 8) { /* the common case, fully unrolled: the eight sums stay in registers for the window */
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
    for (int32_t r = 0; r < rows; ++r, x += x_row, w += w_row) {
      const int8_t *xi = x, *wi = w;
      for (int32_t c = 0; c < cols; ++c, xi += x_step, wi += oc) {
        const int32_t v = *xi + offset;
        a0 += wi[0] * v; a1 += wi[1] * v; a2 += wi[2] * v; a3 += wi[3] * v;
        a4 += wi[4] * v; a5 += wi[5] * v; a6 += wi[6] * v; a7 += wi[7] * v;
      }
    }
    acc[0] = a0; acc[1] = a1; acc[2] = a2; acc[3] = a3; acc[4] = a4; acc[5] = a5; acc[6] = a6; acc[7] = a7;
  } else {
    for (int32_t r = 0; r < rows; ++r, x += x_row, w += w_row) {
      const int8_t *xi = x, *wi = w;
      for (int32_t c = 0; c < cols; ++c, xi += x_step, wi += oc) {
        const int32_t v = *xi + offset;
        for (int32_t j = 0; j < count; ++j) acc[j] += wi[j] * v;
      }
    }
  }
  mote_store(p, acc, oc0, count, out);
}

mote_status mote_depthwise_conv_multiplier_s8(const mote_depthwise_conv_params *p, const int8_t *input,
                                              int8_t *output, mote_scratch scratch) {
  const int32_t ch = p->in_ch, m = p->depth_multiplier, oc = ch * m;
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * ch;
    for (int32_t oy = 0; oy < p->out_h; ++oy) {
      const int32_t y0 = oy * p->stride_h - p->pad_top;
      int32_t fy0, fy1;
      mote_inside(y0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
      for (int32_t ox = 0; ox < p->out_w; ++ox) {
        const int32_t x0 = ox * p->stride_w - p->pad_left;
        int32_t fx0, fx1;
        mote_inside(x0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
        int8_t *out = output + ((b * p->out_h + oy) * p->out_w + ox) * oc;
        const int8_t *x = image + ((y0 + fy0 * p->dilation_h) * p->in_w + x0 + fx0 * p->dilation_w) * ch;
        const int8_t *w = p->weights + (fy0 * p->filter_w + fx0) * oc;
        for (int32_t ic = 0; ic < ch; ++ic) {
          for (int32_t j = 0; j < m; j += 8) {
            mote_block(p, x + ic, w + ic * m + j, fy1 - fy0, fx1 - fx0, ic * m + j, m - j < 8 ? m - j : 8, out);
          }
        }
      }
    }
  }
  return MOTE_OK;
}

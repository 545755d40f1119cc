#include "mote_depthwise_conv_packed_s8.h"

#include "mote_output_stage.h"

/* The `taps` values of `bits` bits packed from `packed` (first value lowest), sign-extended into filter[]. */
static void unpack(const uint8_t *packed, int32_t taps, int32_t bits, int8_t *filter) {
  const int32_t mask = (1 << bits) - 1, half = 1 << (bits - 1), per_byte = 8 / bits;
  for (int32_t k = 0; k < taps; ++k) {
    const int32_t field = (packed[k / per_byte] >> ((k % per_byte) * bits)) & mask;
    filter[k] = (int8_t)((field ^ half) - half);
  }
}

/* The filter taps [*lo, *hi) whose input lies in [0, size) for a window starting at `start`, `step` apart. */
static void tap_range(int32_t start, int32_t step, int32_t taps, int32_t size, int32_t *lo, int32_t *hi) {
  int32_t a = 0, b = taps;
  while (a < taps && start + a * step < 0) ++a;
  while (b > a && start + (b - 1) * step >= size) --b;
  *lo = a, *hi = b;
}

mote_status mote_depthwise_conv_packed_s8(const mote_depthwise_conv_packed_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const int32_t taps = p->filter_h * p->filter_w, out_ch = p->in_ch * p->depth_multiplier;
  if ((p->bits != 4 && p->bits != 2) || scratch.size < (size_t)taps) return MOTE_ERROR;
  const int32_t col_step = p->dilation_w * p->in_ch;
  const mote_conv_output_stage stage = {p->multiplier, p->left_mul, p->right_mul,
                                        p->output_offset, p->act_min, p->act_max};
  int8_t *filter = scratch.buf;
  for (int32_t oc = 0; oc < out_ch; ++oc) {
    const int32_t ic = oc / p->depth_multiplier;
    unpack(p->weights + oc * p->channel_bytes, taps, p->bits, filter);
    const int32_t bias = p->bias ? p->bias[oc] : 0;
    for (int32_t b = 0; b < p->batches; ++b) {
      const int8_t *image = input + b * p->in_h * p->in_w * p->in_ch + ic;
      for (int32_t oy = 0; oy < p->out_h; ++oy) {
        const int32_t y0 = oy * p->stride_h - p->pad_top;
        int32_t fy0, fy1;
        tap_range(y0, p->dilation_h, p->filter_h, p->in_h, &fy0, &fy1);
        for (int32_t ox = 0; ox < p->out_w; ++ox) {
          const int32_t x0 = ox * p->stride_w - p->pad_left;
          int32_t fx0, fx1;
          tap_range(x0, p->dilation_w, p->filter_w, p->in_w, &fx0, &fx1);
          int32_t acc = bias; /* |acc| <= filter_h * filter_w * 8 * 255 + |bias| */
          for (int32_t fy = fy0; fy < fy1 && fx0 < fx1; ++fy) { /* the taps inside the input, by pointer steps */
            const int8_t *f = filter + fy * p->filter_w;
            const int8_t *in = image + ((y0 + fy * p->dilation_h) * p->in_w + x0 + fx0 * p->dilation_w) * p->in_ch;
            for (int32_t fx = fx0; fx < fx1; ++fx, in += col_step) acc += f[fx] * ((int32_t)*in + p->input_offset);
          }
          int8_t *out = output + ((b * p->out_h + oy) * p->out_w + ox) * out_ch;
          out[oc] = mote_conv_output(&stage, acc, oc);
        }
      }
    }
  }
  return MOTE_OK;
}

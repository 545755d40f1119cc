#include "mote_conv_packed_s8.h"

#include "mote_fixedpoint.h"

/* The `taps` values of `bits` bits packed from `packed` (first value lowest), sign-extended into filter[]. */
static void unpack(const uint8_t *packed, int32_t taps, int32_t bits, int8_t *filter) {
  const int32_t mask = (1 << bits) - 1, half = 1 << (bits - 1), per_byte = 8 / bits;
  for (int32_t k = 0; k < taps; ++k) {
    const int32_t field = (packed[k / per_byte] >> ((k % per_byte) * bits)) & mask;
    filter[k] = (int8_t)((field ^ half) - half);
  }
}

mote_status mote_conv_packed_s8(const mote_conv_packed_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t taps = g->filter_h * g->filter_w * p->filter_in_ch;
  if ((p->bits != 4 && p->bits != 2) || p->filter_in_ch <= 0 || g->in_ch % p->filter_in_ch != 0 ||
      scratch.size < (size_t)taps) {
    return MOTE_ERROR;
  }
  const int32_t per_group = g->out_ch / (g->in_ch / p->filter_in_ch);
  int8_t *filter = scratch.buf;
  for (int32_t oc = 0; oc < g->out_ch; ++oc) {
    unpack(p->weights + oc * p->channel_bytes, taps, p->bits, filter);
    const int32_t bias = p->bias ? p->bias[oc] : 0;
    for (int32_t b = 0; b < g->batches; ++b) {
      const int8_t *group_in = input + b * g->in_h * g->in_w * g->in_ch + (oc / per_group) * p->filter_in_ch;
      for (int32_t oy = 0; oy < g->out_h; ++oy) {
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
          const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left;
          /* |acc| <= filter taps * 8 * 255 (+ |bias|): the int8 kernel's bound, with smaller weights. */
          int32_t acc = 0;
          for (int32_t fy = 0; fy < g->filter_h; ++fy) {
            const int32_t iy = y0 + fy * g->dilation_h;
            if (iy < 0 || iy >= g->in_h) continue;
            for (int32_t fx = 0; fx < g->filter_w; ++fx) {
              const int32_t ix = x0 + fx * g->dilation_w;
              if (ix < 0 || ix >= g->in_w) continue;
              const int8_t *in = group_in + (iy * g->in_w + ix) * g->in_ch;
              const int8_t *w = filter + (fy * g->filter_w + fx) * p->filter_in_ch;
              for (int32_t ic = 0; ic < p->filter_in_ch; ++ic) {
                acc += (int32_t)w[ic] * ((int32_t)in[ic] + p->input_offset);
              }
            }
          }
          acc = mote_add_wrap(mote_requantize(acc + bias, p->multiplier[oc], p->shift[oc]), p->output_offset);
          int8_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch;
          out[oc] = (int8_t)mote_clamp(acc, p->act_min, p->act_max);
        }
      }
    }
  }
  return MOTE_OK;
}

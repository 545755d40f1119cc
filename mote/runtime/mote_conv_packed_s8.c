#include "mote_conv_packed_s8.h"

#include "mote_output_stage.h"

/* Output channels computed together: each input value loaded once for this many filters. */
#define BLOCK 4

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

/* acc[j] += sum over the window's in-bounds taps of filters[j][tap] * (input + input_offset), j < BLOCK; the
 * window starts at input (y0, x0) of `group_in` (the group's first channel). |acc| <= taps * 8 * 255 (+ |bias|). */
static void window_dot(const mote_conv_packed_params *p, const int8_t *group_in, const int8_t *filters, int32_t taps,
                       int32_t y0, int32_t x0, int32_t acc[BLOCK]) {
  const mote_conv_geometry *g = &p->geometry;
  int32_t fy0, fy1, fx0, fx1;
  tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &fy0, &fy1);
  tap_range(x0, g->dilation_w, g->filter_w, g->in_w, &fx0, &fx1);
  const int32_t n = p->filter_in_ch, col_step = g->dilation_w * g->in_ch;
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (int32_t fy = fy0; fy < fy1 && fx0 < fx1; ++fy) {
    const int8_t *in = group_in + ((y0 + fy * g->dilation_h) * g->in_w + x0 + fx0 * g->dilation_w) * g->in_ch;
    const int8_t *w = filters + (fy * g->filter_w + fx0) * n;
    for (int32_t fx = fx0; fx < fx1; ++fx, in += col_step, w += n) {
      for (int32_t ic = 0; ic < n; ++ic) {
        const int32_t x = (int32_t)in[ic] + p->input_offset;
        a0 += w[ic] * x;
        a1 += w[taps + ic] * x;
        a2 += w[2 * taps + ic] * x;
        a3 += w[3 * taps + ic] * x;
      }
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

mote_status mote_conv_packed_s8(const mote_conv_packed_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t taps = g->filter_h * g->filter_w * p->filter_in_ch;
  if ((p->bits != 4 && p->bits != 2) || p->filter_in_ch <= 0 || g->in_ch % p->filter_in_ch != 0 ||
      scratch.size < (size_t)(BLOCK * taps)) {
    return MOTE_ERROR;
  }
  const int32_t per_group = g->out_ch / (g->in_ch / p->filter_in_ch);
  const mote_conv_output_stage stage = {p->multiplier, p->left_mul, p->right_mul,
                                        p->output_offset, p->act_min, p->act_max};
  int8_t *filters = scratch.buf;
  for (int32_t oc = 0; oc < g->out_ch; ++oc) {
    /* A block of channels of one group: BLOCK at most, the filters of those past its end zero. */
    const int32_t group = oc / per_group, end = (group + 1) * per_group;
    const int32_t count = end - oc < BLOCK ? end - oc : BLOCK;
    for (int32_t j = 0; j < BLOCK; ++j) {
      if (j < count) {
        unpack(p->weights + (oc + j) * p->channel_bytes, taps, p->bits, filters + j * taps);
      } else {
        for (int32_t k = 0; k < taps; ++k) filters[j * taps + k] = 0;
      }
    }
    for (int32_t b = 0; b < g->batches; ++b) {
      const int8_t *group_in = input + b * g->in_h * g->in_w * g->in_ch + group * p->filter_in_ch;
      for (int32_t oy = 0; oy < g->out_h; ++oy) {
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
          int32_t acc[BLOCK] = {0, 0, 0, 0};
          window_dot(p, group_in, filters, taps, oy * g->stride_h - g->pad_top, ox * g->stride_w - g->pad_left, acc);
          int8_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_ch + oc;
          for (int32_t j = 0; j < count; ++j) {
            out[j] = mote_conv_output(&stage, acc[j] + (p->bias ? p->bias[oc + j] : 0), oc + j);
          }
        }
      }
    }
    oc += count - 1;
  }
  return MOTE_OK;
}

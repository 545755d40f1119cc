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

/* Two pixels at once, the second `step` bytes of input after the first, whose windows have the same in-bounds
 * taps [fy0, fy1) x [fx0, fx1): acc[j] for the first pixel, acc[BLOCK + j] for the second; each input value and
 * weight loaded once for the products it takes part in. Bounds as window_dot's. */
static void window_dot2(const mote_conv_packed_params *p, const int8_t *group_in, const int8_t *filters,
                        int32_t taps, int32_t y0, int32_t x0, int32_t step, const int32_t range[4],
                        int32_t acc[2 * BLOCK]) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t n = p->filter_in_ch, col_step = g->dilation_w * g->in_ch, offset = p->input_offset;
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];
  for (int32_t fy = range[0]; fy < range[1]; ++fy) {
    const int8_t *in = group_in + ((y0 + fy * g->dilation_h) * g->in_w + x0 + range[2] * g->dilation_w) * g->in_ch;
    const int8_t *w = filters + (fy * g->filter_w + range[2]) * n;
    for (int32_t fx = range[2]; fx < range[3]; ++fx, in += col_step, w += n) {
      for (int32_t ic = 0; ic < n; ++ic) {
        const int32_t xa = (int32_t)in[ic] + offset, xb = (int32_t)in[step + ic] + offset;
        const int32_t w0 = w[ic], w1 = w[taps + ic], w2 = w[2 * taps + ic], w3 = w[3 * taps + ic];
        a0 += w0 * xa, a1 += w1 * xa, a2 += w2 * xa, a3 += w3 * xa;
        b0 += w0 * xb, b1 += w1 * xb, b2 += w2 * xb, b3 += w3 * xb;
      }
    }
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = b0, acc[5] = b1, acc[6] = b2, acc[7] = b3;
}

/* A pixel's `count` outputs from its accumulators: bias, the output stage. */
static void store(const mote_conv_packed_params *p, const mote_conv_output_stage *stage, const int32_t *acc,
                  int32_t oc, int32_t count, int8_t *out) {
  for (int32_t j = 0; j < count; ++j) {
    out[j] = mote_conv_output(stage, acc[j] + (p->bias ? p->bias[oc + j] : 0), oc + j);
  }
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
        const int32_t y0 = oy * g->stride_h - g->pad_top;
        int8_t *row = output + (b * g->out_h + oy) * g->out_w * g->out_ch + oc;
        int32_t range[4], next[4];
        tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &range[0], &range[1]);
        for (int32_t ox = 0; ox < g->out_w;) {
          const int32_t x0 = ox * g->stride_w - g->pad_left;
          tap_range(x0, g->dilation_w, g->filter_w, g->in_w, &range[2], &range[3]);
          if (ox + 1 < g->out_w) {
            tap_range(x0 + g->stride_w, g->dilation_w, g->filter_w, g->in_w, &next[2], &next[3]);
          }
          if (ox + 1 < g->out_w && next[2] == range[2] && next[3] == range[3] && range[2] < range[3]) {
            int32_t acc[2 * BLOCK] = {0, 0, 0, 0, 0, 0, 0, 0};
            window_dot2(p, group_in, filters, taps, y0, x0, g->stride_w * g->in_ch, range, acc);
            store(p, &stage, acc, oc, count, row + ox * g->out_ch);
            store(p, &stage, acc + BLOCK, oc, count, row + (ox + 1) * g->out_ch);
            ox += 2;
          } else {
            int32_t acc[BLOCK] = {0, 0, 0, 0};
            window_dot(p, group_in, filters, taps, y0, x0, acc);
            store(p, &stage, acc, oc, count, row + ox * g->out_ch);
            ox += 1;
          }
        }
      }
    }
    oc += count - 1;
  }
  return MOTE_OK;
}

#include "mote_conv_packed_rows_s8.h"

#include "mote_output_stage.h"
#include "mote_packed_dot_s8.h"

/* The window of output pixel (oy, ox) of an image into win[taps]: the input's values, the zero point outside. */
static void gather(const mote_conv_geometry *g, const int8_t *image, int32_t oy, int32_t ox, int8_t zero_point,
                   int8_t *win) {
  const int32_t y0 = oy * g->stride_h - g->pad_top, x0 = ox * g->stride_w - g->pad_left, n = g->in_ch;
  for (int32_t fy = 0; fy < g->filter_h; ++fy) {
    const int32_t iy = y0 + fy * g->dilation_h;
    for (int32_t fx = 0; fx < g->filter_w; ++fx, win += n) {
      const int32_t ix = x0 + fx * g->dilation_w;
      if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w) {
        for (int32_t c = 0; c < n; ++c) win[c] = zero_point;
      } else {
        const int8_t *src = image + (iy * g->in_w + ix) * n;
        for (int32_t c = 0; c < n; ++c) win[c] = src[c];
      }
    }
  }
}

mote_status mote_conv_packed_rows_s8(const mote_conv_packed_rows_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  if (p->bits != 4 && p->bits != 2) return MOTE_ERROR;
  const int32_t taps = g->filter_h * g->filter_w * g->in_ch, half = 1 << (p->bits - 1), per_word = 32 / p->bits;
  const int32_t words = p->row_words * (per_word / 2), win_bytes = (taps + 7) / 8 * 8, m = g->out_ch;
  if (taps <= 0 || (p->bits == 4 && p->row_words % 2) || p->row_words * per_word < taps ||
      scratch.size < (size_t)win_bytes + (size_t)words * sizeof(uint32_t)) {
    return MOTE_ERROR;
  }
  int8_t *win = scratch.buf; /* the arena and its slices are 8-byte aligned, so are the words after the window */
  uint32_t *xs = (uint32_t *)(void *)(scratch.buf + win_bytes);
  const mote_conv_output_stage s = {p->multiplier, p->left_mul, p->right_mul,
                                    p->output_offset, p->act_min, p->act_max};
  for (int32_t b = 0; b < g->batches; ++b) {
    const int8_t *image = input + b * g->in_h * g->in_w * g->in_ch;
    for (int32_t oy = 0; oy < g->out_h; ++oy) {
      for (int32_t ox = 0; ox < g->out_w; ++ox) {
        gather(g, image, oy, ox, (int8_t)-p->input_offset, win);
        /* |acc| <= |bias| + taps * 128 * (2 * half - 1) + taps * 128 * half: within the bound above. */
        const int32_t base = -half * mote_packed_input_words(win, taps, per_word / 2, words, xs);
        int8_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * m;
        int32_t o = 0;
        for (; o + 4 <= m; o += 4) {
          int32_t dot[4];
          mote_packed_dot4(p->weights + o * p->row_words, p->row_words, p->bits, xs, dot);
          for (int32_t r = 0; r < 4; ++r) out[o + r] = mote_conv_output(&s, p->bias[o + r] + base + dot[r], o + r);
        }
        for (; o < m; ++o) {
          const int32_t dot = mote_packed_dot1(p->weights + o * p->row_words, p->row_words, p->bits, xs);
          out[o] = mote_conv_output(&s, p->bias[o] + base + dot, o);
        }
      }
    }
  }
  return MOTE_OK;
}

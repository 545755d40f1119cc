#include "mote_requantize_s32_s8.h"

#include "mote_output_stage.h"

static void fill(int8_t *at, int32_t n, int32_t step, int8_t value) {
  for (int32_t i = 0; i < n; ++i) at[i * step] = value;
}

/* The border of one channel of the output: whole rows above and below, columns left and right. With
 * contiguous rows, one row's right border and the next one's left border are one run of bytes. */
static void fill_border(int8_t *channel, int32_t out_h, int32_t out_w, mote_requantize_s32_steps to,
                        mote_requantize_s32_border b, int8_t value) {
  const int32_t cols = b.left + out_w + b.right, bottom = b.top + out_h;
  if (to.col == 1 && to.row == cols && out_h > 0) {
    int8_t *at = channel;
    fill(at, b.top * cols + b.left, 1, value);
    at += b.top * cols + b.left + out_w;
    for (int32_t y = 1; y < out_h; ++y, at += cols) fill(at, b.right + b.left, 1, value);
    fill(at, b.right + b.bottom * cols, 1, value);
    return;
  }
  for (int32_t y = 0; y < b.top; ++y) fill(channel + y * to.row, cols, to.col, value);
  for (int32_t y = b.top; y < bottom; ++y) {
    fill(channel + y * to.row, b.left, to.col, value);
    fill(channel + y * to.row + (b.left + out_w) * to.col, b.right, to.col, value);
  }
  for (int32_t y = bottom; y < bottom + b.bottom; ++y) fill(channel + y * to.row, cols, to.col, value);
}

mote_status mote_requantize_s32_s8(const mote_requantize_s32_params *p, const int32_t *input, int8_t *output,
                                   mote_scratch scratch) {
  (void)scratch;
  /* Locals: the int8 stores below could alias *p as far as the compiler knows. */
  const int32_t c_n = p->channels, out_h = p->out_h, out_w = p->out_w;
  const mote_requantize_s32_steps in = p->in, to = p->out;
  const int32_t lo = p->act_min, hi = p->act_max;
  const mote_requantize_s32_border border = p->border;
  const int bordered = border.top | border.bottom | border.left | border.right;
  const int32_t offset = p->output_offset;
  int8_t *inside = output + border.top * to.row + border.left * to.col;
  /* Channel by channel, so that each channel's output stage stays in registers. */
  for (int32_t c = 0; c < c_n; ++c) {
    const mote_output_channel s = mote_output_channel_at(p->output_stage, c, offset, lo, hi);
    if (bordered) fill_border(output + c * to.channel, out_h, out_w, to, border, (int8_t)offset);
    const int32_t *acc_row = input + c * in.channel;
    int8_t *out_row = inside + c * to.channel;
    if (s.fast_after == INT32_MAX) { /* a wide channel or one without shortcuts: mostly one clamped value */
      for (int32_t y = 0; y < out_h; ++y, acc_row += in.row, out_row += to.row) {
        for (int32_t x = 0; x < out_w; ++x) out_row[x * to.col] = mote_output_of(acc_row[x * in.col], &s);
      }
      continue;
    }
    for (int32_t y = 0; y < out_h; ++y, acc_row += in.row, out_row += to.row) {
      const int32_t *acc = acc_row;
      int8_t *out = out_row;
      int32_t x = 0;
      if (in.col == 1 && to.col == 1) { /* contiguous rows (channel planes): fixed offsets, eight per step */
        x = out_w & ~7;
        for (const int32_t *end = acc + x; acc != end; acc += 8, out += 8) {
          out[0] = mote_output_of(acc[0], &s);
          out[1] = mote_output_of(acc[1], &s);
          out[2] = mote_output_of(acc[2], &s);
          out[3] = mote_output_of(acc[3], &s);
          out[4] = mote_output_of(acc[4], &s);
          out[5] = mote_output_of(acc[5], &s);
          out[6] = mote_output_of(acc[6], &s);
          out[7] = mote_output_of(acc[7], &s);
        }
        if (x + 4 <= out_w) {
          out[0] = mote_output_of(acc[0], &s);
          out[1] = mote_output_of(acc[1], &s);
          out[2] = mote_output_of(acc[2], &s);
          out[3] = mote_output_of(acc[3], &s);
          x += 4, acc += 4, out += 4;
        }
      } else if (in.col == 2 && to.col == 1) { /* every other position (stride 2) into a plane */
        x = out_w & ~3;
        for (const int32_t *end = acc + 2 * x; acc != end; acc += 8, out += 4) {
          out[0] = mote_output_of(acc[0], &s);
          out[1] = mote_output_of(acc[2], &s);
          out[2] = mote_output_of(acc[4], &s);
          out[3] = mote_output_of(acc[6], &s);
        }
      }
      for (; x + 2 <= out_w; x += 2, acc += 2 * in.col, out += 2 * to.col) { /* two per step: less loop overhead */
        out[0] = mote_output_of(acc[0], &s);
        out[to.col] = mote_output_of(acc[in.col], &s);
      }
      if (x < out_w) {
        *out = mote_output_of(*acc, &s);
      }
    }
  }
  return MOTE_OK;
}

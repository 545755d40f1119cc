#include "mote_depthwise_conv_planar_s8.h"

#include "mote_conv_common.h"

/* Channel c of one image into the padded plane, column-major: cell (r, q) at plane[q * plane_h + r]. */
static void load_plane(const mote_depthwise_conv_planar_params *p, const int8_t *image, int32_t c, int8_t *plane) {
  const int8_t zero_point = (int8_t)-p->input_offset; /* reads as 0 after the offset */
  const int32_t ph = p->plane_h, pw = p->plane_w, step = p->in_row_step;
  /* The plane rows [top, bottom) and columns [left, right) that hold input pixels. */
  const int32_t top = p->pad_top < ph ? p->pad_top : ph;
  const int32_t bottom = p->pad_top + p->in_h < ph ? p->pad_top + p->in_h : ph;
  const int32_t left = p->pad_left < pw ? p->pad_left : pw;
  const int32_t right = p->pad_left + p->in_w < pw ? p->pad_left + p->in_w : pw;
  for (int32_t q = 0; q < pw; ++q, plane += ph) {
    if (q < left || q >= right) {
      for (int32_t r = 0; r < ph; ++r) plane[r] = zero_point;
      continue;
    }
    int32_t r = 0;
    for (; r < top; ++r) plane[r] = zero_point;
    const int8_t *x = image + (top - p->pad_top) * step + (q - p->pad_left) * p->in_col_step + c;
    for (; r < bottom; ++r, x += step) plane[r] = *x;
    for (; r < ph; ++r) plane[r] = zero_point;
  }
}

/* The three products of the plane column at x (three rows, contiguous) with a filter column. */
static inline int32_t column(const int8_t *x, int32_t ka, int32_t kb, int32_t kc) {
  return x[0] * ka + x[1] * kb + x[2] * kc;
}

mote_status mote_depthwise_conv_planar_s8(const mote_depthwise_conv_planar_params *p, const int8_t *input,
                                          int8_t *output, mote_scratch scratch) {
  const size_t row_bytes = (size_t)p->out_w * sizeof(int32_t);
  if (scratch.size < row_bytes + (size_t)p->plane_h * (size_t)p->plane_w) return MOTE_ERROR;
  int32_t *acc = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int8_t *plane = scratch.buf + row_bytes;
  /* Locals, not p->...: stores through acc and out may alias *p as far as the compiler knows. */
  const int32_t n = p->in_ch, ph = p->plane_h, sh = p->stride_h, sw = p->stride_w;
  const int32_t out_h = p->out_h, out_w = p->out_w, lo = p->act_min, hi = p->act_max;
  const int32_t offset = p->output_offset, out_row = p->out_row_step, out_col = p->out_col_step;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int8_t *image = input + b * p->in_h * p->in_w * n; /* frame-independent */
    for (int32_t c = 0; c < n; ++c) {
      load_plane(p, image, c, plane);
      const int8_t *k = p->weights + 9 * c;
      const int32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7];
      const int32_t k8 = k[8], bias = p->folded_bias[c];
      const mote_output_channel stage = mote_output_channel_at(p->output_stage, c, offset, lo, hi);
      int8_t *const first = output + b * out_h * out_w * n + c;
      for (int32_t oy = 0; oy < out_h; ++oy) {
        int8_t *out = first + oy * out_row;
        /* Column by column along the output row, each column's three bytes loaded once where
         * neighbouring windows share it, its products carried to the windows it belongs to. */
        const int8_t *x = plane + oy * sh;
        int32_t *a = acc, *const end = acc + out_w;
        if (sw == 1) {
          int32_t next = bias + column(x, k0, k3, k6) + column(x + ph, k1, k4, k7);
          int32_t after = bias + column(x + ph, k0, k3, k6);
          for (x += 2 * ph; a != end; ++a, x += ph) {
            const int32_t x0 = x[0], x1 = x[1], x2 = x[2];
            *a = next + x0 * k2 + x1 * k5 + x2 * k8;
            next = after + x0 * k1 + x1 * k4 + x2 * k7;
            after = bias + x0 * k0 + x1 * k3 + x2 * k6;
          }
        } else if (sw == 2) {
          int32_t next = bias + column(x, k0, k3, k6);
          for (x += ph; a != end; ++a, x += 2 * ph) {
            const int32_t x0 = x[ph], x1 = x[ph + 1], x2 = x[ph + 2];
            *a = next + column(x, k1, k4, k7) + x0 * k2 + x1 * k5 + x2 * k8;
            next = bias + x0 * k0 + x1 * k3 + x2 * k6;
          }
        } else {
          for (; a != end; ++a, x += sw * ph) {
            *a = bias + column(x, k0, k3, k6) + column(x + ph, k1, k4, k7) + column(x + 2 * ph, k2, k5, k8);
          }
        }
        for (int32_t ox = 0; ox < out_w; ++ox, out += out_col) {
          *out = mote_output_of(acc[ox], stage);
        }
      }
    }
  }
  return MOTE_OK;
}

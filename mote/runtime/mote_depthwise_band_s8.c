#include "mote_depthwise_conv_band_s8.h"

/* A channel's filter for one band: weights k[3 * fy + fx] (rows outside the input zeroed), the bias with
 * their zero-point taps, and the zero point times filter columns 0 and 2. */
typedef struct {
  int32_t k[9];
  int32_t bias, za, zc;
} band_filter;

/* Frame column q of the three rows times filter column fx. */
static inline int32_t column(const band_filter *f, const int8_t *const *row, int32_t q, int32_t fx) {
  return row[0][q] * f->k[fx] + row[1][q] * f->k[3 + fx] + row[2][q] * f->k[6 + fx];
}

static void row_stride1(const mote_depthwise_conv_band_params *p, const band_filter *f, const int8_t *const *rows,
                        const mote_output_channel *s, int8_t *out) {
  const int32_t step = p->col_step;
  int32_t next = 0, after = f->bias + (p->pad_left ? f->za : 0), q = 0;
  for (int32_t peel = p->pad_left; peel < 2; ++peel, q += step) {
    next = after + column(f, rows, q, 1);
    after = f->bias + column(f, rows, q, 0);
  }
  for (int32_t j = 0; j < p->count; ++j, q += step, out += p->out_col_step) {
    *out = mote_output_of(next + column(f, rows, q, 2), s);
    next = after + column(f, rows, q, 1);
    after = f->bias + column(f, rows, q, 0);
  }
  if (p->pad_right) *out = mote_output_of(next + f->zc, s);
}

static void row_stride2(const mote_depthwise_conv_band_params *p, const band_filter *f, const int8_t *const *rows,
                        const mote_output_channel *s, int8_t *out) {
  const int32_t step = p->col_step;
  int32_t carry = f->bias + f->za, q = 0;
  if (!p->pad_left) carry = f->bias + column(f, rows, 0, 0), q = step;
  for (int32_t j = 0; j < p->count; ++j, q += 2 * step, out += p->out_col_step) {
    *out = mote_output_of(carry + column(f, rows, q, 1) + column(f, rows, q + step, 2), s);
    carry = f->bias + column(f, rows, q + step, 0);
  }
  if (p->pad_right) *out = mote_output_of(carry + column(f, rows, q, 1) + f->zc, s);
}

/* Weight t of channel c: int8, or int16 with wide_weights. */
static inline int32_t weight(const mote_depthwise_conv_band_params *p, int32_t c, int32_t t) {
  return p->wide_weights ? p->wide_weights[9 * c + t] : p->weights[9 * c + t];
}

void mote_depthwise_band_s8(const mote_depthwise_conv_band_params *p, const int8_t *input, int8_t *output) {
  const int32_t zp = p->zero_point;
  for (int32_t c = 0; c < p->channels; ++c) {
    const mote_output_channel s = mote_output_channel_at(p->output_stage, c, p->output_offset, p->act_min,
                                                         p->act_max);
    for (int32_t b = 0; b < MOTE_DEPTHWISE_BANDS; ++b) {
      const mote_depthwise_band *band = &p->bands[b];
      if (band->rows == 0) continue;
      band_filter f;
      f.bias = p->folded_bias[c];
      for (int32_t r = 0; r < 3; ++r) {
        const int32_t fy = r + band->shift; /* the filter row the row read meets */
        const int32_t inside = fy >= 0 && fy < 3 && !(band->clip >> fy & 1);
        for (int32_t fx = 0; fx < 3; ++fx) f.k[3 * r + fx] = inside ? weight(p, c, 3 * fy + fx) : 0;
      }
      for (int32_t fy = 0; fy < 3; ++fy) {
        if (!(band->clip >> fy & 1)) continue;
        f.bias += zp * (weight(p, c, 3 * fy) + weight(p, c, 3 * fy + 1) + weight(p, c, 3 * fy + 2));
      }
      f.za = zp * (f.k[0] + f.k[3] + f.k[6]);
      f.zc = zp * (f.k[2] + f.k[5] + f.k[8]);
      const int8_t *top = input + c + band->in_start;
      int8_t *out = output + c + band->out_start;
      for (int32_t r = 0; r < band->rows; ++r, top += p->in_row_step, out += p->out_row_step) {
        const int8_t *const rows[3] = {top, top + band->d_mid, top + band->d_bottom};
        if (p->stride == 1) {
          row_stride1(p, &f, rows, &s, out);
        } else {
          row_stride2(p, &f, rows, &s, out);
        }
      }
    }
  }
}

/* The body of mote_depthwise_band_s8 and mote_depthwise_band_single_s8 (mote_depthwise_conv_band_s8.h), written
 * once: the two differ only in their output-stage rows. */
#ifndef MOTE_DEPTHWISE_BAND_BODY_H
#define MOTE_DEPTHWISE_BAND_BODY_H

#include "mote_depthwise_conv_band_s8.h"
#include "mote_output_single.h"

/* A channel's output stage: its table row with shortcuts, or its one-multiply row (single != NULL). */
typedef struct {
  mote_output_channel full;
  const int32_t *single;
} band_stage;

static inline band_stage band_stage_at(const mote_depthwise_conv_band_params *p, int32_t c, int single) {
  band_stage s = {{0, 0, 0, 0, 0, 0, 0, 0, p->act_min, p->act_max}, 0};
  if (single) {
    s.single = p->output_stage + MOTE_OUTPUT_SINGLE_WORDS * c;
  } else {
    s.full = mote_output_channel_at(p->output_stage, c, p->output_offset, p->act_min, p->act_max);
  }
  return s;
}

static inline int8_t band_output(int32_t acc, const band_stage *s) {
  return s->single ? mote_output_single(acc, s->single, s->full.lo, s->full.hi) : mote_output_of(acc, &s->full);
}

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
                        const band_stage *s, int8_t *out) {
  const int32_t step = p->col_step;
  int32_t next = 0, after = f->bias + (p->pad_left ? f->za : 0), q = 0;
  for (int32_t peel = p->pad_left; peel < 2; ++peel, q += step) {
    next = after + column(f, rows, q, 1);
    after = f->bias + column(f, rows, q, 0);
  }
  for (int32_t j = 0; j < p->count; ++j, q += step, out += p->out_col_step) {
    *out = band_output(next + column(f, rows, q, 2), s);
    next = after + column(f, rows, q, 1);
    after = f->bias + column(f, rows, q, 0);
  }
  if (p->pad_right) *out = band_output(next + f->zc, s);
}

static void row_stride2(const mote_depthwise_conv_band_params *p, const band_filter *f, const int8_t *const *rows,
                        const band_stage *s, int8_t *out) {
  const int32_t step = p->col_step;
  int32_t carry = f->bias + f->za, q = 0;
  if (!p->pad_left) carry = f->bias + column(f, rows, 0, 0), q = step;
  for (int32_t j = 0; j < p->count; ++j, q += 2 * step, out += p->out_col_step) {
    *out = band_output(carry + column(f, rows, q, 1) + column(f, rows, q + step, 2), s);
    carry = f->bias + column(f, rows, q + step, 0);
  }
  if (p->pad_right) *out = band_output(carry + column(f, rows, q, 1) + f->zc, s);
}

/* Weight t of channel c: int8, or int16 with wide_weights. */
static inline int32_t weight(const mote_depthwise_conv_band_params *p, int32_t c, int32_t t) {
  return p->wide_weights ? p->wide_weights[9 * c + t] : p->weights[9 * c + t];
}

/* Every channel of the image, its outputs through TFLite's table rows or (`single`) one-multiply rows. */
static inline void mote_depthwise_band_body(const mote_depthwise_conv_band_params *p, const int8_t *input,
                                            int8_t *output, int single) {
  const int32_t zp = p->zero_point;
  for (int32_t c = 0; c < p->channels; ++c) {
    const band_stage s = band_stage_at(p, c, single);
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

#endif

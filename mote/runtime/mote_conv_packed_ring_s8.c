#include "mote_conv_packed_ring_s8.h"

#include "mote_conv_common.h"

/* Columns [from, to) of every channel pair of a ring row set to the zero point pair. */
static void fill_columns(int32_t *row, int32_t pairs, int32_t width, int32_t from, int32_t to, int32_t zero_pair) {
  for (int32_t jc = 0; jc < pairs; ++jc, row += width) {
    for (int32_t q = from; q < to; ++q) row[q] = zero_pair;
  }
}

/* Input row `src` into the columns [pad_left, pad_left + in_w) of a ring row. */
static void pack_row(const mote_conv_geometry *g, int32_t width, const int8_t *src, int32_t *row) {
  const int32_t pairs = g->in_ch / 2;
  int32_t *column = row + g->pad_left;
  for (int32_t q = 0; q < g->in_w; ++q, ++column) {
    int32_t *word = column;
    for (int32_t jc = 0; jc < pairs; ++jc, src += 2, word += width) *word = src[0] * 65536 + src[1];
  }
}

/* A block's `steps` packed steps (twelve pair words each, from 24 values) into w[13 * step + 1 ...], each
 * step's kind into w[13 * step]. A value v of b bits is read biased, u = field ^ 2^(b - 1) = v + 2^(b - 1), one
 * XOR a byte; a word's two biased values less their biases is the pair word. Step s's kind: bits 2 (s % 4) of
 * kinds[s / 4]. */
static void unpack_block(const uint8_t *packed, const uint8_t *kinds, int32_t steps, int32_t bits, int32_t *w) {
  if (bits == 4) {
    for (int32_t s = 0; s < steps; ++s, w += 13) {
      w[0] = (kinds[s >> 2] >> (2 * (s & 3))) & 3;
      for (int32_t k = 1; k < 13; ++k) {
        const uint32_t u = (uint32_t)(*packed++ ^ 0x88);
        w[k] = (int32_t)(((u & 0xF0u) << 12 | (u & 0x0Fu)) - 0x80008u);
      }
    }
  } else {
    for (int32_t s = 0; s < steps; ++s, w += 13) {
      w[0] = (kinds[s >> 2] >> (2 * (s & 3))) & 3;
      for (int32_t k = 1; k < 13; k += 2) {
        const uint32_t u = (uint32_t)(*packed++ ^ 0xAA);
        w[k] = (int32_t)(((u & 0x0Cu) << 14 | (u & 0x03u)) - 0x20002u);
        w[k + 1] = (int32_t)(((u & 0xC0u) << 10 | ((u >> 4) & 0x03u)) - 0x20002u);
      }
    }
  }
}

mote_status mote_conv_packed_ring_s8(const mote_conv_packed_ring_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch) {
  const mote_conv_geometry *g = &p->geometry;
  const int32_t fh = g->filter_h, pairs = g->in_ch / 2, width = p->width, m = g->out_ch, sw = g->stride_w;
  const int32_t row_words = pairs * width, steps = fh * pairs;
  const size_t need = (size_t)fh * 8 + ((size_t)fh * (size_t)row_words + (size_t)steps * 13) * sizeof(int32_t);
  if ((p->bits != 4 && p->bits != 2) || g->filter_w != 3 || (sw != 1 && sw != 2) || g->dilation_h != 1 ||
      g->dilation_w != 1 || g->in_ch % 2 != 0 || width < g->pad_left + g->in_w ||
      width < ((g->out_w + 3) / 4 * 4 - 1) * sw + 3 || scratch.size < need || p->dot == NULL) {
    return MOTE_ERROR;
  }
  /* The arena and its slices are 8-byte aligned: the row pointers first, then the ring, then the filters. */
  int32_t **rows = (int32_t **)(void *)scratch.buf;
  int32_t *ring = (int32_t *)(void *)(scratch.buf + fh * 8);
  int32_t *w = ring + fh * row_words;
  const int32_t zero_point = -p->input_offset, zero_pair = zero_point * 65536 + zero_point;
  const int32_t block_bytes = steps * 24 * p->bits / 8;
  int8_t part[16]; /* a block that is not whole, before it is copied out */
  mote_block_out how = {part, p->output_stage, 4, p->output_offset, p->act_min, p->act_max, mote_output_rest_s8};
  for (int32_t oc = 0; oc < m; oc += 4) {
    const int32_t channels = m - oc < 4 ? m - oc : 4;
    unpack_block(p->weights + oc / 4 * block_bytes, p->kinds + oc / 4 * ((steps + 3) / 4), steps, p->bits, w);
    how.stage = p->output_stage + oc * MOTE_OUTPUT_STAGE_WORDS;
    for (int32_t b = 0; b < g->batches; ++b) {
      const int8_t *image = input + b * g->in_h * g->in_w * g->in_ch;
      for (int32_t slot = 0; slot < fh; ++slot) { /* the border columns, the same in every row */
        fill_columns(ring + slot * row_words, pairs, width, 0, g->pad_left, zero_pair);
        fill_columns(ring + slot * row_words, pairs, width, g->pad_left + g->in_w, width, zero_pair);
      }
      /* Input row iy lives in slot iy mod filter_h from when a row of outputs first needs it until one
       * needs row iy + filter_h instead: the rows needed advance, so rows below `next` are in place. */
      int32_t next = -g->pad_top;
      for (int32_t oy = 0; oy < g->out_h; ++oy) {
        for (int32_t fy = 0; fy < fh; ++fy) {
          const int32_t iy = oy * g->stride_h - g->pad_top + fy;
          int32_t *row = ring + ((iy + g->pad_top) % fh) * row_words;
          if (iy >= next) {
            if (iy < 0 || iy >= g->in_h) {
              fill_columns(row, pairs, width, g->pad_left, g->pad_left + g->in_w, zero_pair);
            } else {
              pack_row(g, width, image + iy * g->in_w * g->in_ch, row);
            }
            next = iy + 1;
          }
          rows[fy] = row;
        }
        int8_t *out_row = output + (b * g->out_h + oy) * g->out_w * m + oc;
        for (int32_t ox = 0; ox < g->out_w; ox += 4) {
          const int32_t count = g->out_w - ox < 4 ? g->out_w - ox : 4, whole = count == 4 && channels == 4;
          how.out = whole ? out_row + ox * m : part;
          how.m = whole ? m : 4;
          p->dot(rows, fh, 4 * sw * ox, 4 * width, pairs, w, p->bias + oc, &how);
          if (!whole) mote_block_copy(part, count, channels, out_row + ox * m, m);
        }
      }
    }
  }
  return MOTE_OK;
}

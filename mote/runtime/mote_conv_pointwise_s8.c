#include "mote_conv_pointwise_s8.h"

#include "mote_conv_common.h"
#include "mote_dot_pairs_single_4x4_s8.h"
#include "mote_dot_pairs_terms_single_4x4_s8.h"
#include "mote_output_single.h"

/* A block of four pixels from x (pixel step in_ch; those from `count` on read as zeros) as tap pairs,
 * words[4k + i] = x_i[2k] * 2^16 + x_i[2k + 1]. */
static void pack_block(const mote_conv_pointwise_params *p, const int8_t *x, int32_t count, int32_t *words) {
  const int32_t c = p->in_ch, full = c / 2, pairs = p->pairs;
  if (count == 4) {
    const int8_t *x0 = x, *x1 = x + c, *x2 = x + 2 * c, *x3 = x + 3 * c;
    int32_t *w = words;
    for (int32_t k = 0; k < full; ++k, w += 4, x0 += 2, x1 += 2, x2 += 2, x3 += 2) {
      w[0] = x0[0] * 65536 + x0[1], w[1] = x1[0] * 65536 + x1[1];
      w[2] = x2[0] * 65536 + x2[1], w[3] = x3[0] * 65536 + x3[1];
    }
    if (c % 2 != 0) w[0] = x0[0] * 65536, w[1] = x1[0] * 65536, w[2] = x2[0] * 65536, w[3] = x3[0] * 65536;
  } else {
    for (int32_t i = 0; i < 4; ++i) {
      for (int32_t k = 0; k < full; ++k) {
        words[4 * k + i] = i < count ? x[i * c + 2 * k] * 65536 + x[i * c + 2 * k + 1] : 0;
      }
      if (c % 2 != 0) words[4 * full + i] = i < count ? x[i * c + c - 1] * 65536 : 0;
    }
  }
  for (int32_t k = 4 * ((c + 1) / 2); k < 4 * pairs; ++k) words[k] = 0;
}

/* Each packed pixel's sum of taps, from the sum t of its pair words x0 * 2^16 + x1 (modulo 2^32): the low
 * halves' sum b (at most 16 * 128 in magnitude), plus the high halves', (t - b) / 2^16. */
static void tap_sums(const int32_t *words, int32_t pairs, int32_t sums[4]) {
  for (int32_t i = 0; i < 4; ++i) {
    uint32_t t = 0;
    for (int32_t k = 0; k < pairs; ++k) t += (uint32_t)words[4 * k + i];
    const int32_t b = (int32_t)(t << 16) >> 16;
    sums[i] = ((int32_t)(t - (uint32_t)b) >> 16) + b;
  }
}

/* n sets of four output channels from set q on, for a block of packed pixels whose tap sums are `sums`. */
static void sets(const mote_conv_pointwise_params *p, const int32_t *words, const int32_t sums[4], int32_t q,
                 int32_t n, const mote_block_out *how) {
  const int32_t *w = p->weights + 4 * q * p->pairs, *runs = p->runs + p->run_start[q];
  if (p->terms) {
    mote_dot_pairs_terms_single_4x4_s8(words, w, p->pairs / 2, runs, p->bias + 8 * q, n, how, sums);
  } else {
    mote_dot_pairs_single_4x4_s8(words, w, p->pairs / 2, runs, p->bias + 4 * q, n, how);
  }
}

/* The outputs of a block of four packed pixels: whole sets of four channels to out (pixel step m), the
 * last set of fewer than four through a buffer. */
static void block(const mote_conv_pointwise_params *p, const int32_t *words, const int32_t sums[4], int8_t *out,
                  int32_t m) {
  const int32_t whole = p->out_ch / 4, rest = p->out_ch - 4 * whole, oc = 4 * whole;
  const mote_block_out how = {out, p->output_stage, m, 0, p->act_min, p->act_max};
  if (whole > 0) sets(p, words, sums, 0, whole, &how);
  if (rest == 0) return;
  int8_t part[16];
  const mote_block_out into = {part, p->output_stage + oc * MOTE_OUTPUT_SINGLE_WORDS, 4, 0, p->act_min,
                               p->act_max};
  sets(p, words, sums, whole, 1, &into);
  mote_block_copy(part, 4, rest, out + oc, m);
}

/* The block of four pixels from px (pixels past the last read as zeros, their outputs dropped). */
static void pixels_from(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output, int32_t px,
                        int32_t *words, int8_t *staged) {
  const int32_t count = p->pixels - px < 4 ? p->pixels - px : 4, m = p->out_ch;
  int32_t sums[4] = {0, 0, 0, 0};
  pack_block(p, input + px * p->in_ch, count, words);
  if (p->terms) tap_sums(words, p->pairs, sums);
  if (count == 4) {
    block(p, words, sums, output + px * m, m);
    return;
  }
  block(p, words, sums, staged, m);
  for (int32_t k = 0; k < count * m; ++k) output[px * m + k] = staged[k];
}

mote_status mote_conv_pointwise_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                   mote_scratch scratch) {
  const int32_t pairs = p->pairs;
  if (pairs <= 0 || pairs % 2 != 0 || 2 * pairs < p->in_ch ||
      scratch.size < (size_t)(16 * pairs + 4 * p->out_ch)) {
    return MOTE_ERROR;
  }
  int32_t *words = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int8_t *staged = scratch.buf + 16 * pairs;       /* a short block's outputs, [4][out_ch] */
  /* Backwards from the last (short) block when the output outgrows the input it overlaps: each block is
   * read before the outputs written so far reach it. */
  const int32_t last = (p->pixels - 1) / 4 * 4;
  for (int32_t k = 0; k <= last; k += 4) pixels_from(p, input, output, p->reverse ? last - k : k, words, staged);
  return MOTE_OK;
}

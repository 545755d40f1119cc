#include "mote_conv_pointwise_s8.h"

#include "mote_conv_common.h"
#include "mote_dot_pairs_single_4x4_s8.h"
#include "mote_dot_pairs_terms_single_4x4_s8.h"
#include "mote_output_single.h"

/* Pixel i of a block (its in_ch channels at x, or zeros when x is NULL) as tap pairs, words[4k + i]; returns
 * the sum of its taps. */
static int32_t pack_pixel(const int8_t *x, int32_t in_ch, int32_t pairs, int32_t *words) {
  int32_t k = 0, sum = 0;
  if (x != NULL) {
    for (; 2 * k + 1 < in_ch; ++k) {
      const int32_t a = x[2 * k], b = x[2 * k + 1];
      words[4 * k] = a * 65536 + b, sum += a + b;
    }
    if (2 * k < in_ch) words[4 * k] = x[2 * k] * 65536, sum += x[2 * k], ++k;
  }
  for (; k < pairs; ++k) words[4 * k] = 0;
  return sum;
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
  int32_t sums[4];
  for (int32_t i = 0; i < 4; ++i) {
    sums[i] = pack_pixel(i < count ? input + (px + i) * p->in_ch : NULL, p->in_ch, p->pairs, words + i);
  }
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

#include "mote_conv_pointwise_blocks_s8.h"

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

/* pack_block for a whole block, each pixel's sum of taps in sums[i] too (the uint8 variant's terms): from the
 * sum of its pair words x0 * 2^16 + x1, A * 2^16 + B with A and B the sums of the pairs' first and second
 * taps, exact modulo 2^32 and |B| < 2^15 for the at most 64 taps taken (one add per pair instead of two). */
static void pack_block_sums(const mote_conv_pointwise_params *p, const int8_t *x, int32_t *words, int32_t sums[4]) {
  const int32_t c = p->in_ch;
  const int8_t *x0 = x, *x1 = x + c, *x2 = x + 2 * c, *x3 = x + 3 * c, *end = x + (c & ~1);
  uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int32_t *w = words;
  for (; x0 != end; w += 4, x0 += 2, x1 += 2, x2 += 2, x3 += 2) {
    const int32_t w0 = x0[0] * 65536 + x0[1], w1 = x1[0] * 65536 + x1[1];
    const int32_t w2 = x2[0] * 65536 + x2[1], w3 = x3[0] * 65536 + x3[1];
    w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3;
    s0 += (uint32_t)w0, s1 += (uint32_t)w1, s2 += (uint32_t)w2, s3 += (uint32_t)w3;
  }
  if (c % 2 != 0) {
    const int32_t w0 = x0[0] * 65536, w1 = x1[0] * 65536, w2 = x2[0] * 65536, w3 = x3[0] * 65536;
    w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3;
    s0 += (uint32_t)w0, s1 += (uint32_t)w1, s2 += (uint32_t)w2, s3 += (uint32_t)w3;
  }
  for (int32_t k = 4 * ((c + 1) / 2); k < 4 * p->pairs; ++k) words[k] = 0;
  const uint32_t total[4] = {s0, s1, s2, s3};
  for (int32_t i = 0; i < 4; ++i) {
    const int32_t t = (int32_t)total[i], a = (t + 32768) >> 16;
    sums[i] = a + (t - a * 65536);
  }
}

/* A short block's sums of taps (its missing pixels' 0). */
static void short_sums(const int8_t *x, int32_t c, int32_t count, int32_t sums[4]) {
  for (int32_t i = 0; i < 4; ++i) {
    int32_t sum = 0;
    for (int32_t d = 0; i < count && d < c; ++d) sum += x[i * c + d];
    sums[i] = sum;
  }
}

/* The outputs of `blocks` blocks of four packed pixels, one after the other from out (pixel step m): whole sets
 * of four channels straight there, the last set of fewer than four through `part` ([blocks][4][4]). */
static void outputs(const mote_conv_pointwise_params *p, mote_pointwise_sets sets, const int32_t *words,
                    const int32_t *sums, int32_t blocks, int8_t *out, int32_t m, int8_t *part) {
  const int32_t whole = p->out_ch / 4, rest = p->out_ch - 4 * whole, oc = 4 * whole;
  const mote_block_out how = {out, p->output_stage, m, 0, p->act_min, p->act_max};
  if (whole > 0) sets(p, words, sums, 0, whole, &how, blocks);
  if (rest == 0) return;
  const mote_block_out into = {part, p->output_stage + oc * MOTE_OUTPUT_SINGLE_WORDS, 4, 0, p->act_min,
                               p->act_max};
  sets(p, words, sums, whole, 1, &into, blocks);
  for (int32_t b = 0; b < blocks; ++b) mote_block_copy(part + 16 * b, 4, rest, out + 4 * b * m + oc, m);
}

/* Scratch: the packed pixels of a chunk of blocks, the last set's outputs of a chunk, a short block's outputs. */
typedef struct {
  int32_t *words;  /* [chunk][pairs][4] */
  int8_t *part;    /* [chunk][4][4] */
  int8_t *staged;  /* [4][out_ch] */
} work;

/* The whole blocks of four pixels, MOTE_CONV_POINTWISE_CHUNK at a time: backwards when the output outgrows the
 * input it overlaps, so that each chunk's pixels are read before the outputs written so far reach them. */
static void whole_blocks(const mote_conv_pointwise_params *p, mote_pointwise_sets sets, const int8_t *input,
                         int8_t *output, const work *at) {
  const int32_t whole = p->pixels / 4, c = p->in_ch, m = p->out_ch, block_words = 4 * p->pairs;
  int32_t sums[4 * MOTE_CONV_POINTWISE_CHUNK] = {0};
  for (int32_t done = 0; done < whole;) {
    const int32_t n = whole - done < MOTE_CONV_POINTWISE_CHUNK ? whole - done : MOTE_CONV_POINTWISE_CHUNK;
    const int32_t first = p->reverse ? whole - done - n : done;
    for (int32_t b = 0; b < n; ++b) {
      if (p->terms) {
        pack_block_sums(p, input + (first + b) * 4 * c, at->words + b * block_words, sums + 4 * b);
      } else {
        pack_block(p, input + (first + b) * 4 * c, 4, at->words + b * block_words);
      }
    }
    outputs(p, sets, at->words, sums, n, output + first * 4 * m, m, at->part);
    done += n;
  }
}

/* The last pixels when fewer than four are left: computed as a block whose missing pixels read zeros. */
static void short_block(const mote_conv_pointwise_params *p, mote_pointwise_sets sets, const int8_t *input,
                        int8_t *output, const work *at) {
  const int32_t px = p->pixels / 4 * 4, count = p->pixels - px, m = p->out_ch;
  int32_t sums[4] = {0, 0, 0, 0};
  pack_block(p, input + px * p->in_ch, count, at->words);
  if (p->terms) short_sums(input + px * p->in_ch, p->in_ch, count, sums);
  outputs(p, sets, at->words, sums, 1, at->staged, m, at->part);
  for (int32_t k = 0; k < count * m; ++k) output[px * m + k] = at->staged[k];
}

mote_status mote_conv_pointwise_blocks_s8(const mote_conv_pointwise_params *p, const int8_t *input, int8_t *output,
                                          mote_scratch scratch, mote_pointwise_sets sets) {
  const int32_t pairs = p->pairs, chunk = MOTE_CONV_POINTWISE_CHUNK;
  if (pairs <= 0 || pairs % 2 != 0 || 2 * pairs < p->in_ch ||
      scratch.size < (size_t)(chunk * (16 * pairs + 16) + 4 * p->out_ch)) {
    return MOTE_ERROR;
  }
  int8_t *part = scratch.buf + chunk * 16 * pairs;
  const work at = {(int32_t *)(void *)scratch.buf, part, part + chunk * 16}; /* the arena is 8-byte aligned */
  const int tail = p->pixels % 4 != 0;
  if (p->reverse && tail) short_block(p, sets, input, output, &at);
  whole_blocks(p, sets, input, output, &at);
  if (!p->reverse && tail) short_block(p, sets, input, output, &at);
  return MOTE_OK;
}

/* The body of mote_batch_matmul_pairs_s8 and mote_batch_matmul_pairs_single_s8 (mote_batch_matmul_pairs_s8.h):
 * the file that includes it defines MOTE_BMM_PAIRS_SINGLE (1: one-multiply rows) and MOTE_BMM_PAIRS_FUNCTION
 * (the name of the static function it then calls). */
#ifndef MOTE_BATCH_MATMUL_PAIRS_BODY_H
#define MOTE_BATCH_MATMUL_PAIRS_BODY_H

#include "mote_batch_matmul_pairs_s8.h"
#include "mote_conv_common.h"
#include "mote_dot_matmul_terms_4x4_s8.h"
#include "mote_dot_matmul_single_4x4_s8.h"

/* What a line's sum is stored as: offset + scale * sum, modulo 2^32. */
typedef struct {
  uint32_t scale, offset;
} mote_line_sum;

static inline int32_t line_sum(mote_line_sum how, int32_t sum) {
  return (int32_t)(how.offset + how.scale * (uint32_t)sum);
}

/* `lines` lines of an operand (line i from src + i * line_step, its element k at k * depth_step) as pair
 * words, four lines interleaved: words[(i / 4) * 4 * pairs + 4 q + i % 4] = x[2q] * 2^16 + x[2q + 1] (A's
 * rows, `first_high`), else x[2q] + x[2q + 1] * 2^16 (B's columns); the pairs past the depth zero. sums[i]:
 * the line's sum, from the sum of its words: their low halves add up to the sum of one element of each pair
 * (at most 128 * pairs < 2^15 in magnitude), the rest is the other elements' sum times 2^16. */
static void pack_lines(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step, int32_t depth,
                       int32_t pairs, int first_high, mote_line_sum sum, int32_t *words, int32_t *sums) {
  const int32_t even = depth & ~1, ds2 = 2 * depth_step;
  const int32_t s0 = first_high ? 16 : 0, s1 = first_high ? 0 : 16;
  for (int32_t i = 0; i < lines; ++i) {
    int32_t *w = words + (i >> 2) * 4 * pairs + (i & 3);
    int32_t *end = w + 4 * pairs;
    const int8_t *x = src + i * line_step;
    uint32_t total = 0;
    for (const int32_t *stop = w + 2 * even; w != stop; x += ds2, w += 4) {
      const uint32_t word = ((uint32_t)(int32_t)x[0] << s0) + ((uint32_t)(int32_t)x[depth_step] << s1);
      *w = (int32_t)word;
      total += word;
    }
    if (depth & 1) {
      const uint32_t word = (uint32_t)(int32_t)x[0] << s0;
      *w = (int32_t)word;
      total += word;
      w += 4;
    }
    for (; w != end; w += 4) *w = 0;
    const int32_t low = (int16_t)(uint16_t)(total & 0xFFFFu);
    sums[i] = line_sum(sum, low + ((int32_t)(total - (uint32_t)low) >> 16));
  }
}

/* B's columns as pack_lines(first_high = 0) packs them where they are adjacent bytes (col_step 1: B given
 * [depth][cols]): four columns at a time, each pair's eight bytes at constant offsets from two row pointers,
 * the four sums in registers. */
static void pack_adjacent_cols(const int8_t *src, int32_t cols, int32_t depth_step, int32_t depth, int32_t pairs,
                               mote_line_sum sum, int32_t *words, int32_t *sums) {
  const int32_t even = depth & ~1;
  for (int32_t c = 0; c < cols; c += 4, src += 4, words += 4 * pairs) {
    const int8_t *y0 = src, *y1 = src + depth_step;
    int32_t *w = words;
    int32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (const int32_t *stop = w + 2 * even; w != stop; y0 += 2 * depth_step, y1 += 2 * depth_step, w += 4) {
      const int32_t u0 = y0[0], u1 = y0[1], u2 = y0[2], u3 = y0[3];
      const int32_t v0 = y1[0], v1 = y1[1], v2 = y1[2], v3 = y1[3];
      w[0] = u0 + v0 * 65536, w[1] = u1 + v1 * 65536, w[2] = u2 + v2 * 65536, w[3] = u3 + v3 * 65536;
      t0 += u0 + v0, t1 += u1 + v1, t2 += u2 + v2, t3 += u3 + v3;
    }
    if (depth & 1) {
      w[0] = y0[0], w[1] = y0[1], w[2] = y0[2], w[3] = y0[3];
      t0 += y0[0], t1 += y0[1], t2 += y0[2], t3 += y0[3];
      w += 4;
    }
    for (int32_t *end = words + 4 * pairs; w != end; w += 4) w[0] = w[1] = w[2] = w[3] = 0;
    sums[c] = line_sum(sum, t0), sums[c + 1] = line_sum(sum, t1);
    sums[c + 2] = line_sum(sum, t2), sums[c + 3] = line_sum(sum, t3);
  }
}

/* The last depth % 4 elements of a line packed by pack_adjacent_lines, and the zero pair after an odd pair. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t pack_tail(const int8_t *x, int32_t rest, int first_high, int32_t *w) {
  uint32_t total = 0;
  for (int32_t k = 0; k < 4; k += 2, x += 2, w += 4) {
    const int32_t u = k < rest ? x[0] : 0, v = k + 1 < rest ? x[1] : 0;
    const uint32_t word = first_high ? ((uint32_t)u << 16) + (uint32_t)v : (uint32_t)u + ((uint32_t)v << 16);
    *w = (int32_t)word;
    total += word;
  }
  return total;
}

/* pack_lines for lines whose elements are adjacent bytes (depth_step 1), four elements a step; inlined with
 * first_high constant. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pack_adjacent_lines(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth,
                                       int32_t pairs, int first_high, mote_line_sum sum, int32_t *words,
                                       int32_t *sums) {
  const int32_t whole = depth & ~3, rest = depth & 3, block = 4 * pairs;
  for (int32_t i = 0; i < lines; i += 4, words += block, src += 4 * line_step) {
    for (int32_t j = 0; j < 4; ++j) {
      int32_t *w = words + j;
      const int8_t *x = src + j * line_step, *stop = x + whole;
      uint32_t total = 0;
      for (; x != stop; x += 4, w += 8) {
        const uint32_t p = first_high ? ((uint32_t)(int32_t)x[0] << 16) + (uint32_t)(int32_t)x[1]
                                      : (uint32_t)(int32_t)x[0] + ((uint32_t)(int32_t)x[1] << 16);
        const uint32_t q = first_high ? ((uint32_t)(int32_t)x[2] << 16) + (uint32_t)(int32_t)x[3]
                                      : (uint32_t)(int32_t)x[2] + ((uint32_t)(int32_t)x[3] << 16);
        w[0] = (int32_t)p, w[4] = (int32_t)q;
        total += p + q;
      }
      if (rest) total += pack_tail(x, rest, first_high, w);
      const int32_t low = (int16_t)(uint16_t)(total & 0xFFFFu);
      sums[i + j] = line_sum(sum, low + ((int32_t)(total - (uint32_t)low) >> 16));
    }
  }
}

/* A batch's operand of `lines` lines as pair words and sums, by the packing its layout allows. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pack_operand(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step, int32_t depth,
                         int32_t pairs, int first_high, mote_line_sum sum, int32_t *words, int32_t *sums) {
  if (depth_step == 1) {
    pack_adjacent_lines(src, lines, line_step, depth, pairs, first_high, sum, words, sums);
  } else if (!first_high && line_step == 1) {
    pack_adjacent_cols(src, lines, depth_step, depth, pairs, sum, words, sums);
  } else {
    pack_lines(src, lines, line_step, depth_step, depth, pairs, first_high, sum, words, sums);
  }
}

/* A's rows and B's columns: pack_operand with first_high constant, each its own copy. */
static void pack_rows(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step, int32_t depth,
                      int32_t pairs, mote_line_sum sum, int32_t *words, int32_t *sums) {
  pack_operand(src, lines, line_step, depth_step, depth, pairs, 1, sum, words, sums);
}

static void pack_cols(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step, int32_t depth,
                      int32_t pairs, mote_line_sum sum, int32_t *words, int32_t *sums) {
  pack_operand(src, lines, line_step, depth_step, depth, pairs, 0, sum, words, sums);
}

static mote_status MOTE_BMM_PAIRS_FUNCTION(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                           const int8_t *b, int8_t *output, mote_scratch scratch) {
  const int32_t rows = p->rows, cols = p->cols, pairs = 2 * p->groups;
  const size_t words = (size_t)(rows + cols) * (size_t)(pairs + 1) + 2 * (size_t)cols;
  if ((rows & 3) || (cols & 3) || rows <= 0 || cols <= 0 || p->groups != (p->depth + 3) / 4 ||
      scratch.size < 4 * words) {
    return MOTE_ERROR;
  }
  int32_t *x = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  int32_t *row_sums = x + rows * pairs;
  int32_t *w = row_sums + rows;
  int32_t *col_sums = w + cols * pairs;
  /* each row's term -zb * rowsum, each column's start bias_constant - za * colsum */
  const mote_line_sum row_term = {0u - (uint32_t)p->b_zero_point, 0u};
  const mote_line_sum col_start = {0u - (uint32_t)p->a_zero_point, (uint32_t)p->bias_constant};
#if MOTE_BMM_PAIRS_SINGLE
  mote_block_out how = {output, p->output_stage, cols, p->output_offset, p->act_min, p->act_max, NULL};
#else
  int32_t *bias = col_sums + cols; /* [cols / 4][8]: four starts, four scales (1: the rows' terms as they are) */
  mote_block_out how = {output, p->output_stage, cols, p->output_offset, p->act_min, p->act_max,
                        mote_output_rest_s8};
#endif
  for (int32_t batch = 0; batch < p->batches; ++batch, output += rows * cols) {
    pack_rows(a + p->a_offsets[batch], rows, p->a_row_step, p->a_depth_step, p->depth, pairs, row_term, x, row_sums);
    pack_cols(b + p->b_offsets[batch], cols, p->b_col_step, p->b_depth_step, p->depth, pairs, col_start, w, col_sums);
#if MOTE_BMM_PAIRS_SINGLE
    how.out = output;
    mote_dot_matmul_single_4x4_s8(x, w, pairs, col_sums, row_sums, cols / 4, &how, rows / 4);
#else
    for (int32_t c = 0; c < cols; ++c) {
      int32_t *set = bias + 8 * (c >> 2) + (c & 3);
      set[0] = col_sums[c];
      set[4] = 1;
    }
    for (int32_t r = 0; r < rows; r += 4) {
      how.out = output + r * cols;
      mote_dot_matmul_terms_4x4_s8(x + r * pairs, w, p->groups, p->runs, bias, cols / 4, &how, row_sums + r);
    }
#endif
  }
  return MOTE_OK;
}

#endif

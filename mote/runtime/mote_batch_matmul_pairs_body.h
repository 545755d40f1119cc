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

/* A line's sum from the sum of its pair words (pack_lines). */
static inline int32_t words_sum(uint32_t total) {
  const int32_t low = (int16_t)(uint16_t)(total & 0xFFFFu);
  return low + ((int32_t)(total - (uint32_t)low) >> 16);
}

/* One pair word of two int8 values: the first high (A's rows) or low (B's columns). */
static inline uint32_t pair_word(int32_t u, int32_t v, int first_high) {
  return first_high ? ((uint32_t)u << 16) + (uint32_t)v : (uint32_t)u + ((uint32_t)v << 16);
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
    sums[i] = line_sum(sum, words_sum(total));
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
    uint32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (const int32_t *stop = w + 2 * even; w != stop; y0 += 2 * depth_step, y1 += 2 * depth_step, w += 4) {
      const uint32_t p0 = pair_word(y0[0], y1[0], 0), p1 = pair_word(y0[1], y1[1], 0);
      const uint32_t p2 = pair_word(y0[2], y1[2], 0), p3 = pair_word(y0[3], y1[3], 0);
      w[0] = (int32_t)p0, w[1] = (int32_t)p1, w[2] = (int32_t)p2, w[3] = (int32_t)p3;
      t0 += p0, t1 += p1, t2 += p2, t3 += p3;
    }
    if (depth & 1) {
      w[0] = y0[0], w[1] = y0[1], w[2] = y0[2], w[3] = y0[3];
      t0 += (uint32_t)w[0], t1 += (uint32_t)w[1], t2 += (uint32_t)w[2], t3 += (uint32_t)w[3];
      w += 4;
    }
    for (int32_t *end = words + 4 * pairs; w != end; w += 4) w[0] = w[1] = w[2] = w[3] = 0;
    sums[c] = line_sum(sum, words_sum(t0)), sums[c + 1] = line_sum(sum, words_sum(t1));
    sums[c + 2] = line_sum(sum, words_sum(t2)), sums[c + 3] = line_sum(sum, words_sum(t3));
  }
}

/* pack_lines for lines whose elements are adjacent bytes (depth_step 1) and a depth that is a multiple of 4
 * (no pair past it): four lines at a time, two pairs of each a step; inlined with first_high constant. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pack_adjacent_lines(const int8_t *src, int32_t lines, int32_t line_step, int32_t pairs,
                                       int first_high, mote_line_sum sum, int32_t *words, int32_t *sums) {
  for (int32_t i = 0; i < lines; i += 4, src += 4 * line_step, sums += 4) {
    const int8_t *x0 = src, *x1 = x0 + line_step, *x2 = x1 + line_step, *x3 = x2 + line_step;
    uint32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (const int32_t *end = words + 4 * pairs; words != end; words += 8, x0 += 4, x1 += 4, x2 += 4, x3 += 4) {
      const uint32_t p0 = pair_word(x0[0], x0[1], first_high), q0 = pair_word(x0[2], x0[3], first_high);
      const uint32_t p1 = pair_word(x1[0], x1[1], first_high), q1 = pair_word(x1[2], x1[3], first_high);
      const uint32_t p2 = pair_word(x2[0], x2[1], first_high), q2 = pair_word(x2[2], x2[3], first_high);
      const uint32_t p3 = pair_word(x3[0], x3[1], first_high), q3 = pair_word(x3[2], x3[3], first_high);
      words[0] = (int32_t)p0, words[1] = (int32_t)p1, words[2] = (int32_t)p2, words[3] = (int32_t)p3;
      words[4] = (int32_t)q0, words[5] = (int32_t)q1, words[6] = (int32_t)q2, words[7] = (int32_t)q3;
      t0 += p0 + q0, t1 += p1 + q1, t2 += p2 + q2, t3 += p3 + q3;
    }
    sums[0] = line_sum(sum, words_sum(t0)), sums[1] = line_sum(sum, words_sum(t1));
    sums[2] = line_sum(sum, words_sum(t2)), sums[3] = line_sum(sum, words_sum(t3));
  }
}

/* A batch's operand of `lines` lines as pair words and sums, by the packing its layout allows. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void pack_operand(const int8_t *src, int32_t lines, int32_t line_step, int32_t depth_step,
                                int32_t depth, int32_t pairs, int first_high, mote_line_sum sum, int32_t *words,
                                int32_t *sums) {
  if (depth_step == 1 && (depth & 3) == 0) {
    pack_adjacent_lines(src, lines, line_step, pairs, first_high, sum, words, sums);
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

#if MOTE_BMM_PAIRS_SINGLE
/* The one-multiply output of the sum z (its stage's constant included): mote_output_single. */
#define MOTE_BMM_SINGLE(z) \
  ((int32_t)(z) < low ? lo : (int32_t)(z) >= high ? hi : (int8_t)(uint8_t)((uint64_t)((int64_t)(int32_t)(z) * mult) >> 32))

/* Fewer than four rows (a decode step): B's bytes read as they are, each row of A less its zero point,
 * a'[k] in [-255, 255], in `ax`; z = sum_k a'[k] * B[k][c] - zb * sum_k a'[k] + the stage's constant (modulo
 * 2^32), eight columns sharing each a'[k] where B's columns are adjacent bytes, four depths of four columns a
 * step where each column's depth is, else four columns through four pointers. */
static void few_rows_single(const mote_batch_matmul_pairs_params *p, const int8_t *a, const int8_t *b, int8_t *out,
                            int32_t *ax) {
  const int32_t depth = p->depth, cols = p->cols, ds = p->b_depth_step, cs = p->b_col_step;
  const int32_t low = p->output_stage[0], high = p->output_stage[1];
  const int64_t mult = p->output_stage[2];
  const int8_t lo = (int8_t)p->act_min, hi = (int8_t)p->act_max;
  const uint32_t za = (uint32_t)p->a_zero_point, zb = (uint32_t)p->b_zero_point;
  const uint32_t add = (uint32_t)p->bias_constant - 128u * (uint32_t)(2 * p->groups) - (uint32_t)depth * za * zb;
  for (int32_t r = 0; r < p->rows; ++r, out += cols) {
    const int8_t *x = a + r * p->a_row_step;
    int32_t sum = 0;
    for (int32_t k = 0; k < depth; ++k) {
      ax[k] = x[k * p->a_depth_step] - p->a_zero_point;
      sum += ax[k];
    }
    const uint32_t base = add - zb * (uint32_t)sum;
    int32_t c = 0;
    if (cs == 1) {
      for (; c + 8 <= cols; c += 8) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base, s4 = base, s5 = base, s6 = base, s7 = base;
        const int8_t *y = b + c;
        for (int32_t k = 0; k < depth; ++k, y += ds) {
          const int32_t v = ax[k];
          s0 += (uint32_t)(v * y[0]), s1 += (uint32_t)(v * y[1]), s2 += (uint32_t)(v * y[2]);
          s3 += (uint32_t)(v * y[3]), s4 += (uint32_t)(v * y[4]), s5 += (uint32_t)(v * y[5]);
          s6 += (uint32_t)(v * y[6]), s7 += (uint32_t)(v * y[7]);
        }
        out[c] = MOTE_BMM_SINGLE(s0), out[c + 1] = MOTE_BMM_SINGLE(s1), out[c + 2] = MOTE_BMM_SINGLE(s2);
        out[c + 3] = MOTE_BMM_SINGLE(s3), out[c + 4] = MOTE_BMM_SINGLE(s4), out[c + 5] = MOTE_BMM_SINGLE(s5);
        out[c + 6] = MOTE_BMM_SINGLE(s6), out[c + 7] = MOTE_BMM_SINGLE(s7);
      }
    } else if (ds == 1) {
      const int32_t whole = depth & ~3;
      for (; c + 4 <= cols; c += 4) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base;
        const int8_t *y0 = b + c * cs, *y1 = y0 + cs, *y2 = y1 + cs, *y3 = y2 + cs;
        const int32_t *v = ax;
        for (const int32_t *end = ax + whole; v != end; v += 4, y0 += 4, y1 += 4, y2 += 4, y3 += 4) {
          const int32_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
          s0 += (uint32_t)(v0 * y0[0] + v1 * y0[1] + v2 * y0[2] + v3 * y0[3]);
          s1 += (uint32_t)(v0 * y1[0] + v1 * y1[1] + v2 * y1[2] + v3 * y1[3]);
          s2 += (uint32_t)(v0 * y2[0] + v1 * y2[1] + v2 * y2[2] + v3 * y2[3]);
          s3 += (uint32_t)(v0 * y3[0] + v1 * y3[1] + v2 * y3[2] + v3 * y3[3]);
        }
        for (int32_t k = whole; k < depth; ++k, ++v, ++y0, ++y1, ++y2, ++y3) {
          s0 += (uint32_t)(*v * *y0), s1 += (uint32_t)(*v * *y1), s2 += (uint32_t)(*v * *y2), s3 += (uint32_t)(*v * *y3);
        }
        out[c] = MOTE_BMM_SINGLE(s0), out[c + 1] = MOTE_BMM_SINGLE(s1);
        out[c + 2] = MOTE_BMM_SINGLE(s2), out[c + 3] = MOTE_BMM_SINGLE(s3);
      }
    }
    for (; c < cols; ++c) {
      uint32_t total = base;
      const int8_t *y = b + c * cs;
      for (int32_t k = 0; k < depth; ++k, y += ds) total += (uint32_t)(ax[k] * *y);
      out[c] = MOTE_BMM_SINGLE(total);
    }
  }
}
#undef MOTE_BMM_SINGLE
#endif

static mote_status MOTE_BMM_PAIRS_FUNCTION(const mote_batch_matmul_pairs_params *p, const int8_t *a,
                                           const int8_t *b, int8_t *output, mote_scratch scratch) {
  const int32_t rows = p->rows, cols = p->cols, pairs = 2 * p->groups;
  const size_t words = (size_t)(rows + cols) * (size_t)(pairs + 1) + 2 * (size_t)cols;
  if (rows <= 0 || cols <= 0 || p->groups != (p->depth + 3) / 4 || scratch.size < 4 * words) return MOTE_ERROR;
#if MOTE_BMM_PAIRS_SINGLE
  if (rows < 4) { /* the scratch holds at least depth words */
    for (int32_t batch = 0; batch < p->batches; ++batch, output += rows * cols) {
      few_rows_single(p, a + p->a_offsets[batch], b + p->b_offsets[batch], output, (int32_t *)(void *)scratch.buf);
    }
    return MOTE_OK;
  }
#endif
  if ((rows & 3) || (cols & 3)) return MOTE_ERROR;
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
  mote_block_out how = {output, p->output_stage, cols, p->output_offset, p->act_min, p->act_max, p->rest};
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

/* The register-blocked int8 batch matmul (mote_batch_matmul_blocked_s8.h), written once for its output
 * stages: the file that includes this header defines MOTE_BMM_OUTPUT (mote_output_of for TFLite's
 * requantization, mote_output_of_requant_shift where the table holds RequantShift rows), MOTE_BMM_FUNCTION (the
 * name of the static function it then calls) and, for a table row per column, MOTE_BMM_PER_COLUMN 1:
 * mote_batch_matmul_blocked_s8.c, mote_batch_matmul_requant_shift_s8.c and
 * mote_batch_matmul_requant_shift_cols_s8.c. */
#ifndef MOTE_BATCH_MATMUL_BLOCKED_BODY_H
#define MOTE_BATCH_MATMUL_BLOCKED_BODY_H

#include "mote_batch_matmul_blocked_s8.h"
#include "mote_conv_common.h"

/* The rows of one batch's A as pair words, four rows interleaved ([rows4 / 4][pairs][4], the rows past the
 * last zero), and each row's term -zb * rowsum + depth * za * zb (modulo 2^32). */
static void pack_rows(const mote_batch_matmul_blocked_params *p, const int8_t *a, int32_t rows4, int32_t *words,
                      uint32_t *row_term) {
  const int32_t pairs = p->pairs, even = p->depth & ~1, ds = p->a_depth_step;
  const uint32_t corner = (uint32_t)p->depth * (uint32_t)p->a_zero_point * (uint32_t)p->b_zero_point;
  for (int32_t r = 0; r < rows4; ++r) {
    int32_t *w = words + (r / 4) * 4 * pairs + r % 4;
    if (r >= p->rows) {
      for (int32_t q = 0; q < pairs; ++q) w[4 * q] = 0;
      row_term[r] = 0;
      continue;
    }
    const int8_t *x = a + r * p->a_row_step;
    int32_t sum = 0;
    for (int32_t k = 0; k < even; k += 2, x += 2 * ds, w += 4) {
      const int32_t u = x[0], v = x[ds];
      *w = u * 65536 + v;
      sum += u + v;
    }
    if (p->depth & 1) {
      *w = x[0] * 65536;
      sum += x[0];
    }
    row_term[r] = corner - (uint32_t)p->b_zero_point * (uint32_t)sum;
  }
}

/* Columns c0 .. c0 + 3 of one batch's B as negated pair words [pairs][4] (the columns past the last zero),
 * and their terms -za * colsum (modulo 2^32). */
static void pack_cols(const mote_batch_matmul_blocked_params *p, const int8_t *b, int32_t c0, int32_t *words,
                      uint32_t col_term[4]) {
  const int32_t pairs = p->pairs, even = p->depth & ~1, ds = p->b_depth_step;
  for (int32_t j = 0; j < 4; ++j) {
    int32_t *w = words + j;
    if (c0 + j >= p->cols) {
      for (int32_t q = 0; q < pairs; ++q) w[4 * q] = 0;
      col_term[j] = 0;
      continue;
    }
    const int8_t *y = b + (c0 + j) * p->b_col_step;
    int32_t sum = 0;
    for (int32_t k = 0; k < even; k += 2, y += 2 * ds, w += 4) {
      const int32_t u = y[0], v = y[ds];
      *w = -u - v * 65536;
      sum += u + v;
    }
    if (p->depth & 1) {
      *w = -y[0];
      sum += y[0];
    }
    col_term[j] = 0u - (uint32_t)p->a_zero_point * (uint32_t)sum;
  }
}

/* *acc -= X . W (a pair product, exact: see the header), modulo 2^32 as TFLite's int32 accumulator wraps. The
 * empty asm statement claims to change the accumulator, so the compiler keeps each sum in one register in
 * source order instead of gathering the products first (mote_accumulate). */
static inline void take(uint32_t *acc, int32_t x, int32_t w) {
  *acc -= (uint32_t)mote_pair_dot(x, w);
#if defined(__GNUC__)
  __asm__("" : "+r"(*acc));
#endif
}

/* acc[16b + 4i + j] = row_term[4b + i] + col_term[j] - sum_q X_{4b+i}[q] . W_j[q] for `blocks` blocks of four rows
 * by four columns: block b's rows' words at x[4 pairs b + 4q + i], the columns' at w[4q + j]. Not inlined: its
 * sixteen sums and their operands take the core's registers. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void dot_4x4(const int32_t *x, const int32_t *w, int32_t pairs, const uint32_t *row_term,
                    const uint32_t *col_term, int32_t blocks, uint32_t *acc) {
  for (; blocks > 0; --blocks, row_term += 4, acc += 16) {
    uint32_t s[16];
    for (int32_t i = 0; i < 4; ++i) {
      for (int32_t j = 0; j < 4; ++j) s[4 * i + j] = row_term[i] + col_term[j];
    }
    const int32_t *v = w;
    for (const int32_t *end = x + 4 * pairs; x != end; x += 4, v += 4) {
      const int32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
      for (int32_t j = 0; j < 4; ++j) {
        const int32_t u = v[j];
        take(&s[j], x0, u), take(&s[4 + j], x1, u), take(&s[8 + j], x2, u), take(&s[12 + j], x3, u);
      }
    }
    for (int32_t i = 0; i < 16; ++i) acc[i] = s[i];
  }
}

/* acc[j] -= sum_q X[4q] . W_j[q]: one row (its words at x[4q]) by four columns. */
static void dot_1x4(const int32_t *x, const int32_t *w, int32_t pairs, uint32_t acc[4]) {
  uint32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
  for (const int32_t *end = x + 4 * pairs; x != end; x += 4, w += 4) {
    const int32_t u = *x;
    take(&s0, u, w[0]), take(&s1, u, w[1]), take(&s2, u, w[2]), take(&s3, u, w[3]);
  }
  acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
}

#ifndef MOTE_BMM_PER_COLUMN
#define MOTE_BMM_PER_COLUMN 0
#endif

/* Column c's output of the sum `acc`: through `s`, the one stage of every column, or (MOTE_BMM_PER_COLUMN)
 * through the table's row c. */
static inline int8_t bmm_out(const mote_batch_matmul_blocked_params *p, uint32_t acc, const mote_output_channel *s,
                             int32_t c) {
#if MOTE_BMM_PER_COLUMN
  const mote_output_channel own = mote_output_channel_at(p->output_stage, c, p->output_offset, p->act_min,
                                                         p->act_max);
  (void)s;
  return MOTE_BMM_OUTPUT((int32_t)acc, &own);
#else
  (void)p, (void)c;
  return MOTE_BMM_OUTPUT((int32_t)acc, s);
#endif
}

/* A row's outputs of n columns from c0 on, from acc[0 .. n - 1]. */
static void store_row(const mote_batch_matmul_blocked_params *p, const mote_output_channel *s, const uint32_t *acc,
                      int32_t c0, int32_t n, int8_t *out) {
  for (int32_t j = 0; j < n; ++j) out[j] = bmm_out(p, acc[j], s, c0 + j);
}

/* Fewer than four rows (a decode step's q . K^T, weights . V): packing B would cost as much as the products,
 * so B's bytes are read as they are. Each row of A less its zero point, a'[k] in [-255, 255], goes to `ax`;
 * out[r][c] = requantize(sum_k a'[k] * B[k][c] - zb * sum_k a'[k]) (modulo 2^32, as TFLite's sum wraps), four
 * or eight columns sharing each a'[k] (through one pointer where B's columns are adjacent bytes; where each
 * column's depth is, four depths of four columns a step; else four pointers). */
static void few_rows(const mote_batch_matmul_blocked_params *p, const int8_t *a, const int8_t *b, int8_t *out,
                     int32_t *ax, const mote_output_channel *s) {
  const int32_t depth = p->depth, cols = p->cols, ds = p->b_depth_step;
  for (int32_t r = 0; r < p->rows; ++r, out += cols) {
    const int8_t *x = a + r * p->a_row_step;
    int32_t sum = 0;
    for (int32_t k = 0; k < depth; ++k) {
      ax[k] = x[k * p->a_depth_step] - p->a_zero_point;
      sum += ax[k];
    }
    const uint32_t base = 0u - (uint32_t)p->b_zero_point * (uint32_t)sum;
    int32_t c = 0;
    if (p->b_col_step == 1) {
      for (; c + 8 <= cols; c += 8) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base, s4 = base, s5 = base, s6 = base, s7 = base;
        const int8_t *y = b + c;
        for (int32_t k = 0; k < depth; ++k, y += ds) {
          const int32_t v = ax[k];
          s0 += (uint32_t)(v * y[0]), s1 += (uint32_t)(v * y[1]), s2 += (uint32_t)(v * y[2]);
          s3 += (uint32_t)(v * y[3]), s4 += (uint32_t)(v * y[4]), s5 += (uint32_t)(v * y[5]);
          s6 += (uint32_t)(v * y[6]), s7 += (uint32_t)(v * y[7]);
        }
        out[c] = bmm_out(p, s0, s, c), out[c + 1] = bmm_out(p, s1, s, c + 1);
        out[c + 2] = bmm_out(p, s2, s, c + 2), out[c + 3] = bmm_out(p, s3, s, c + 3);
        out[c + 4] = bmm_out(p, s4, s, c + 4), out[c + 5] = bmm_out(p, s5, s, c + 5);
        out[c + 6] = bmm_out(p, s6, s, c + 6), out[c + 7] = bmm_out(p, s7, s, c + 7);
      }
      for (; c + 4 <= cols; c += 4) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base;
        const int8_t *y = b + c;
        for (int32_t k = 0; k < depth; ++k, y += ds) {
          const int32_t v = ax[k];
          s0 += (uint32_t)(v * y[0]), s1 += (uint32_t)(v * y[1]);
          s2 += (uint32_t)(v * y[2]), s3 += (uint32_t)(v * y[3]);
        }
        out[c] = bmm_out(p, s0, s, c), out[c + 1] = bmm_out(p, s1, s, c + 1);
        out[c + 2] = bmm_out(p, s2, s, c + 2), out[c + 3] = bmm_out(p, s3, s, c + 3);
      }
    } else if (ds == 1) {
      /* each column's depth in adjacent bytes (B given [cols][depth]): four columns, four depths a step */
      const int32_t whole = depth & ~3;
      for (; c + 4 <= cols; c += 4) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base;
        const int8_t *y0 = b + c * p->b_col_step, *y1 = y0 + p->b_col_step, *y2 = y1 + p->b_col_step;
        const int8_t *y3 = y2 + p->b_col_step;
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
        out[c] = bmm_out(p, s0, s, c), out[c + 1] = bmm_out(p, s1, s, c + 1);
        out[c + 2] = bmm_out(p, s2, s, c + 2), out[c + 3] = bmm_out(p, s3, s, c + 3);
      }
    } else {
      for (; c + 4 <= cols; c += 4) {
        uint32_t s0 = base, s1 = base, s2 = base, s3 = base;
        const int8_t *y0 = b + c * p->b_col_step, *y1 = y0 + p->b_col_step, *y2 = y1 + p->b_col_step;
        const int8_t *y3 = y2 + p->b_col_step;
        for (int32_t k = 0; k < depth; ++k, y0 += ds, y1 += ds, y2 += ds, y3 += ds) {
          const int32_t v = ax[k];
          s0 += (uint32_t)(v * *y0), s1 += (uint32_t)(v * *y1), s2 += (uint32_t)(v * *y2), s3 += (uint32_t)(v * *y3);
        }
        out[c] = bmm_out(p, s0, s, c), out[c + 1] = bmm_out(p, s1, s, c + 1);
        out[c + 2] = bmm_out(p, s2, s, c + 2), out[c + 3] = bmm_out(p, s3, s, c + 3);
      }
    }
    for (; c < cols; ++c) {
      uint32_t total = base;
      const int8_t *y = b + c * p->b_col_step;
      for (int32_t k = 0; k < depth; ++k, y += ds) total += (uint32_t)(ax[k] * *y);
      out[c] = bmm_out(p, total, s, c);
    }
  }
}

static mote_status MOTE_BMM_FUNCTION(const mote_batch_matmul_blocked_params *p, const int8_t *a,
                                         const int8_t *b, int8_t *output, mote_scratch scratch) {
  const int32_t rows = p->rows, cols = p->cols, pairs = p->pairs, rows4 = (rows + 3) & ~3;
  const size_t words = (size_t)rows4 * (size_t)pairs + (size_t)rows4 + 4 * (size_t)pairs + 4 * (size_t)rows4;
  if (pairs != (p->depth + 1) / 2 || rows <= 0 || cols <= 0 || scratch.size < 4 * words) return MOTE_ERROR;
  int32_t *a_words = (int32_t *)(void *)scratch.buf; /* the arena and its slices are 8-byte aligned */
  uint32_t *row_term = (uint32_t *)(a_words + rows4 * pairs);
  int32_t *b_words = (int32_t *)(row_term + rows4);
  uint32_t *acc = (uint32_t *)(b_words + 4 * pairs); /* [rows4 / 4][16]: a set of four columns' sums */
  const mote_output_channel s = mote_output_channel_at(p->output_stage, 0, p->output_offset, p->act_min,
                                                       p->act_max);
  const int32_t whole = rows / 4 * 4;
  for (int32_t batch = 0; batch < p->batches; ++batch, output += rows * cols) {
    if (whole == 0) {
      few_rows(p, a + p->a_offsets[batch], b + p->b_offsets[batch], output, a_words, &s);
      continue;
    }
    pack_rows(p, a + p->a_offsets[batch], rows4, a_words, row_term);
    for (int32_t c0 = 0; c0 < cols; c0 += 4) {
      uint32_t col_term[4];
      pack_cols(p, b + p->b_offsets[batch], c0, b_words, col_term);
      const int32_t n = cols - c0 < 4 ? cols - c0 : 4;
      dot_4x4(a_words, b_words, pairs, row_term, col_term, whole / 4, acc);
      for (int32_t r = 0; r < whole; r += 4) {
        int8_t *out = output + r * cols + c0;
        const uint32_t *block = acc + 4 * r;
        if (n == 4) {
          for (int32_t i = 0; i < 16; i += 4, out += cols) {
            out[0] = bmm_out(p, block[i], &s, c0), out[1] = bmm_out(p, block[i + 1], &s, c0 + 1);
            out[2] = bmm_out(p, block[i + 2], &s, c0 + 2), out[3] = bmm_out(p, block[i + 3], &s, c0 + 3);
          }
        } else {
          for (int32_t i = 0; i < 4; ++i, out += cols) store_row(p, &s, block + 4 * i, c0, n, out);
        }
      }
      for (int32_t r = whole; r < rows; ++r) {
        uint32_t acc[4];
        for (int32_t j = 0; j < 4; ++j) acc[j] = row_term[r] + col_term[j];
        dot_1x4(a_words + whole * pairs + r % 4, b_words, pairs, acc);
        store_row(p, &s, acc, c0, n, output + r * cols + c0);
      }
    }
  }
  return MOTE_OK;
}

#endif

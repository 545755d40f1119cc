/* Row-by-row traversal of a broadcast binary op (add, sub, mul); see mote/ops/broadcast.py.
 * The output is walked in row-major order as `rank` nested loops over `shape` (outermost first); per
 * step of loop d, input a advances a_strides[d] elements (0 where a is broadcast), input b likewise.
 * The innermost loop is one output row: contiguous in the output, stride 0 or 1 in each input. */
#ifndef MOTE_BROADCAST_H
#define MOTE_BROADCAST_H

#include <stdint.h>

#define MOTE_BCAST_MAX_DIMS 6

typedef struct {
  int32_t index[MOTE_BCAST_MAX_DIMS]; /* position in the outer loops */
  int32_t a, b;                       /* element offsets of the current row in each input */
} mote_bcast_cursor;

/* The number of rows: the product of every extent but the innermost. */
static inline int32_t mote_bcast_rows(int32_t rank, const int32_t *shape) {
  int32_t rows = 1;
  int32_t d;
  for (d = 0; d < rank - 1; ++d) rows *= shape[d];
  return rows;
}

static inline void mote_bcast_start(mote_bcast_cursor *c) {
  int32_t d;
  for (d = 0; d < MOTE_BCAST_MAX_DIMS; ++d) c->index[d] = 0;
  c->a = 0;
  c->b = 0;
}

/* Moves the cursor to the next row (an odometer over the outer loops). */
static inline void mote_bcast_next_row(mote_bcast_cursor *c, int32_t rank, const int32_t *shape,
                                       const int32_t *a_strides, const int32_t *b_strides) {
  int32_t d;
  for (d = rank - 2; d >= 0; --d) {
    c->a += a_strides[d];
    c->b += b_strides[d];
    if (++c->index[d] < shape[d]) return;
    c->a -= a_strides[d] * shape[d];
    c->b -= b_strides[d] * shape[d];
    c->index[d] = 0;
  }
}

#endif

#include "mote_lstm_blocked_s16.h"

#if defined(__GNUC__)
#define LSTM_BLOCK_INLINE static inline __attribute__((always_inline))
#else
#define LSTM_BLOCK_INLINE static inline
#endif

/* acc[j] = start[j] + sum_d x[d] * w[width * d + j] for j < width, two inputs per step. Each caller passes a
 * constant width, so the loops over j unroll and the sums stay in registers. No sum leaves int32 (checked at
 * compile time). */
LSTM_BLOCK_INLINE void dot_block(const int16_t *x, const int8_t *w, int32_t depth, int32_t width,
                                 const int32_t *start, int32_t *acc) {
  int32_t a[16];
#pragma GCC unroll 16
  for (int32_t j = 0; j < width; ++j) a[j] = start[j];
  for (const int16_t *end = x + (depth & ~1); x != end; x += 2, w += 2 * width) {
    const int32_t u = x[0], v = x[1];
#pragma GCC unroll 16
    for (int32_t j = 0; j < width; ++j) a[j] += u * w[j] + v * w[width + j];
  }
  if (depth & 1) {
    const int32_t u = x[0];
#pragma GCC unroll 16
    for (int32_t j = 0; j < width; ++j) a[j] += u * w[j];
  }
#pragma GCC unroll 16
  for (int32_t j = 0; j < width; ++j) acc[j] = a[j];
}

/* dot_block for a block of 16, 8 or 4 rows, its width a constant in each case. */
static void dot_any(const int16_t *x, const int8_t *w, int32_t depth, int32_t width, const int32_t *start,
                    int32_t *acc) {
  if (width == 16) {
    dot_block(x, w, depth, 16, start, acc);
  } else if (width == 8) {
    dot_block(x, w, depth, 8, start, acc);
  } else {
    dot_block(x, w, depth, 4, start, acc);
  }
}

/* FC k's int32 sum in the gates' int16 scale: TFLite's int64 MultiplyByQuantizedMultiplier, saturated. */
static inline int32_t scale16(const mote_lstm_int_params *p, int32_t acc, int32_t k) {
  return mote_lstm_saturate16(mote_requantize64(acc, p->gate_multiplier[k], p->gate_shift[k]));
}

/* The four gates' pre-activations of one batch row into gates [4 units]: for each of the 4 * units weight
 * rows, block by block, its input FC on x and its recurrent FC on h, each rescaled and saturated, then their
 * saturated sum. */
static void gates_of_row(const mote_lstm_int_params *p, const int16_t *x, const int16_t *h, int16_t *gates) {
  const int32_t n = p->units, in = p->input_size, rows = 4 * n;
  const int32_t *folded = (const int32_t *)p->folded;
  const int8_t *wx = (const int8_t *)p->input_weights, *wh = (const int8_t *)p->recurrent_weights;
  int32_t gate = 0, gate_end = n;
  for (int32_t o = 0, width; o < rows; o += width, wx += width * in, wh += width * n) {
    width = rows - o >= 16 ? 16 : rows - o >= 8 ? 8 : 4;
    int32_t acc_x[16], acc_h[16];
    dot_any(x, wx, in, width, folded + o, acc_x);
    dot_any(h, wh, n, width, folded + rows + o, acc_h);
    for (int32_t j = 0; j < width; ++j) {
      if (o + j == gate_end) ++gate, gate_end += n; /* the next gate's rows */
      gates[o + j] = (int16_t)mote_lstm_saturate16(scale16(p, acc_x[j], gate) + scale16(p, acc_h[j], 4 + gate));
    }
  }
}

/* One time step of `rows` batch rows, one row at a time (the rows share nothing). */
static void step(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c, void *y,
                 int16_t *gates, int wide) {
  (void)wide;
  const int32_t n = p->units, in = p->input_size;
  for (int32_t r = 0; r < rows; ++r) {
    int16_t *hr = (int16_t *)h + r * n;
    gates_of_row(p, (const int16_t *)x + r * in, hr, gates); /* h before this step's update */
    mote_lstm_cell(p, n, gates, hr, c + r * n, (int16_t *)y + r * n, 1);
  }
}

mote_status mote_lstm_blocked_s16(const mote_lstm_int_params *p, const int16_t *input, int16_t *hidden,
                                  int16_t *cell, int16_t *output, mote_scratch scratch) {
  mote_lstm_sequence(p, input, hidden, cell, output, scratch, 1, step);
  return MOTE_OK;
}

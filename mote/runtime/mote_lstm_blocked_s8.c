#include "mote_lstm_blocked_s8.h"

#if defined(__GNUC__)
#define LSTM_BLOCK_INLINE static inline __attribute__((always_inline))
#else
#define LSTM_BLOCK_INLINE static inline
#endif

/* acc[j] += sum_d x[d] * w[width * d + j] for j < width, two inputs per step. Each caller passes a constant
 * width, so the loops over j unroll and the sums stay in registers. No sum leaves int32: each is at most the
 * FC's constant part plus 128 times the row's absolute weights (checked at compile time). */
LSTM_BLOCK_INLINE void dot_block(const int8_t *x, const int8_t *w, int32_t depth, int32_t width, int32_t *acc) {
  int32_t a[16];
#pragma GCC unroll 16
  for (int32_t j = 0; j < width; ++j) a[j] = acc[j];
  for (const int8_t *end = x + (depth & ~1); x != end; x += 2, w += 2 * width) {
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

/* One of the two fully connected products of all four gates on the row x of `depth` values: the input's
 * (k = 0, written to gates) or the recurrent one (k = 4, added to gates, saturating), each of the 4 * units
 * sums rescaled to the gates' int16 scale by its gate's multiplier. */
static void gates_fc(const mote_lstm_int_params *p, const int8_t *x, const int8_t *w, const int32_t *folded,
                     int32_t depth, int32_t k, int16_t *gates) {
  const int32_t n = p->units, rows = 4 * n;
  int32_t gate = k, gate_end = n;
  uint32_t m = (uint32_t)p->gate_multiplier[k], left = (uint32_t)p->gate_left_mul[k];
  uint32_t right = (uint32_t)p->gate_right_mul[k];
  for (int32_t o = 0, width; o < rows; o += width, w += width * depth) {
    width = rows - o >= 16 ? 16 : rows - o >= 8 ? 8 : 4;
    int32_t acc[16];
    for (int32_t j = 0; j < width; ++j) acc[j] = folded[o + j];
    if (width == 16) {
      dot_block(x, w, depth, 16, acc);
    } else if (width == 8) {
      dot_block(x, w, depth, 8, acc);
    } else {
      dot_block(x, w, depth, 4, acc);
    }
    for (int32_t j = 0; j < width; ++j) {
      if (o + j == gate_end) { /* the next gate's rows */
        ++gate, gate_end += n;
        m = (uint32_t)p->gate_multiplier[gate], left = (uint32_t)p->gate_left_mul[gate];
        right = (uint32_t)p->gate_right_mul[gate];
      }
      const int32_t v = mote_lstm_saturate16(mote_conv_scale(acc[j], m, left, right, 0u));
      gates[o + j] = (int16_t)(k == 0 ? v : mote_lstm_saturate16(gates[o + j] + v));
    }
  }
}

/* One time step of `rows` batch rows, one row at a time (the rows share nothing). */
static void step(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c, void *y,
                 int16_t *gates, int wide) {
  (void)wide;
  const int32_t n = p->units, in = p->input_size;
  const int32_t *folded = (const int32_t *)p->folded;
  for (int32_t r = 0; r < rows; ++r) {
    int8_t *hr = (int8_t *)h + r * n;
    gates_fc(p, (const int8_t *)x + r * in, p->input_weights, folded, in, 0, gates);
    gates_fc(p, hr, p->recurrent_weights, folded + 4 * n, n, 4, gates); /* h before this step's update */
    mote_lstm_cell(p, n, gates, hr, c + r * n, (int8_t *)y + r * n, 0);
  }
}

mote_status mote_lstm_blocked_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                                 int8_t *output, mote_scratch scratch) {
  mote_lstm_sequence(p, input, hidden, cell, output, scratch, 0, step);
  return MOTE_OK;
}

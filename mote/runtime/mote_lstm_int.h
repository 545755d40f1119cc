/* The integer UNIDIRECTIONAL_SEQUENCE_LSTM of TFLite Micro (see mote/ops/lstm_int.py), for int8 activations
 * (wide = 0: int32 sums and biases) or int16 ones (wide = 1: int64 sums and biases); int8 weights, an int16
 * cell state. mote_lstm_s8 and mote_lstm_s16 call it with a constant, so each compiles to its own loops;
 * mote_lstm_blocked_s8 computes the gates its own way and shares the cell update (mote_lstm_cell). */
#ifndef MOTE_LSTM_INT_H
#define MOTE_LSTM_INT_H

#include "mote_fixedpoint.h"
#include "mote_output_stage.h"
#include "mote_sigmoid_s16.h"

typedef struct {
  int32_t time_major;           /* input and output [steps][batches][...] (1) or [batches][steps][...] (0) */
  int32_t batches, steps, input_size, units;
  const int32_t *gate_multiplier;       /* [8]: the input FCs of the gates (input, forget, cell, output), then */
  const int32_t *gate_shift;            /* the recurrent FCs: each into the gates' int16 scale 2^-12 */
  const int32_t *gate_left_mul;         /* [8]: the shifts as mote_conv_scale takes them (int32 sums) */
  const int32_t *gate_right_mul;
  const int32_t *cell_multiplier;       /* [3]: f * c -> c, i * g -> c, tanh(c) * o -> h */
  const int32_t *cell_left_mul;         /* [3]: their shifts as mote_conv_scale takes them */
  const int32_t *cell_right_mul;
  int32_t hidden_zero_point, hidden_min, hidden_max;
  int32_t cell_clip;                        /* -1: none */
  int32_t cell_tanh_multiplier, cell_tanh_shift; /* tanh(c): c in the sigmoid table's steps */
  const void *input_weights;       /* int8 [4][units][input_size]; mote_lstm_blocked_s8: its own order */
  const void *recurrent_weights;   /* int8 [4][units][units]; likewise */
  const void *folded;              /* [8][units]: int32 (wide = 0) or int64 (wide = 1): each FC's constant part,
                                      the gate's bias and the zero points times the weights' row sums */
  const uint16_t *sigmoid_table;   /* [256] (mote/ops/sigmoid_table.py) */
} mote_lstm_int_params;

/* The gates' loops out of line, one copy per kernel: inlined into the step, compilers schedule them worse. */
#if defined(__GNUC__)
#define MOTE_LSTM_NOINLINE static __attribute__((noinline, unused))
#else
#define MOTE_LSTM_NOINLINE static
#endif

static inline int32_t mote_lstm_saturate16(int32_t v) { return mote_clamp(v, -32768, 32767); }

/* TFLite's MultiplyByQuantizedMultiplier of an int32 value by stage k of `multiplier` and its shifts. */
static inline int32_t mote_lstm_scale(int32_t x, const int32_t *multiplier, const int32_t *left_mul,
                                      const int32_t *right_mul, int32_t k) {
  return mote_conv_scale(x, (uint32_t)multiplier[k], (uint32_t)left_mul[k], (uint32_t)right_mul[k], 0u);
}

/* An int32 sum of FC k (gates' input FCs 0-3, their recurrent FCs 4-7) into the gates' int16 scale. */
static inline int32_t mote_lstm_gate_scale(const mote_lstm_int_params *p, int32_t acc, int32_t k) {
  return mote_lstm_saturate16(mote_lstm_scale(acc, p->gate_multiplier, p->gate_left_mul, p->gate_right_mul, k));
}

/* TFLite's integer FullyConnected of one row into the gates' int16 scale: FC k of output u, its constant
 * part first. */
static inline int32_t mote_lstm_fc(const mote_lstm_int_params *p, const void *row, const int8_t *w, int32_t depth,
                                   int32_t k, int32_t u, int wide) {
  if (wide) {
    const int16_t *x = (const int16_t *)row;
    int64_t acc = ((const int64_t *)p->folded)[k * p->units + u];
    for (int32_t d = 0; d < depth; ++d) acc += w[d] * x[d];
    return mote_lstm_saturate16(mote_requantize64(acc, p->gate_multiplier[k], p->gate_shift[k]));
  }
  const int8_t *x = (const int8_t *)row;
  int32_t acc = ((const int32_t *)p->folded)[k * p->units + u];
  for (int32_t d = 0; d < depth; ++d) acc += w[d] * x[d];
  return mote_lstm_saturate16(mote_requantize(acc, p->gate_multiplier[k], p->gate_shift[k]));
}

/* Gate g's pre-activation for `rows` rows, into out [rows][units]. */
MOTE_LSTM_NOINLINE void mote_lstm_gate(const mote_lstm_int_params *p, int32_t g, int32_t rows, const void *x,
                                  const void *h, int16_t *out, int wide) {
  const int32_t n = p->units, in = p->input_size, width = wide ? 2 : 1;
  const int8_t *wx = (const int8_t *)p->input_weights, *wh = (const int8_t *)p->recurrent_weights;
  for (int32_t r = 0; r < rows; ++r) {
    const void *xr = (const int8_t *)x + r * in * width, *hr = (const int8_t *)h + r * n * width;
    for (int32_t u = 0; u < n; ++u) {
      const int32_t from_input = mote_lstm_fc(p, xr, wx + (g * n + u) * in, in, g, u, wide);
      const int32_t from_state = mote_lstm_fc(p, hr, wh + (g * n + u) * n, n, 4 + g, u, wide);
      out[r * n + u] = (int16_t)mote_lstm_saturate16(from_input + from_state);
    }
  }
}

/* The rest of a time step once the gates' pre-activations are in `gates` (input, forget, cell and output gate,
 * `size` values each, the same rows as h, c and y), value by value in TFLite Micro's arithmetic: the gates'
 * sigmoids and tanh (their input at 2^-12, 3 x in the table's steps), the cell state c, then the hidden state
 * h, copied to the output y. */
static inline void mote_lstm_cell(const mote_lstm_int_params *p, int32_t size, const int16_t *gates, void *h,
                                  int16_t *c, void *y, int wide) {
  /* every constant read before the loop: its int8 stores could otherwise alias them */
  const mote_sigmoid_s16_params cell_tanh = {size, p->cell_tanh_multiplier, p->cell_tanh_shift, p->sigmoid_table};
  const uint16_t *table = p->sigmoid_table;
  const int16_t *in = gates, *forget = gates + size, *cell = gates + 2 * size, *out = gates + 3 * size;
  const int32_t m[3] = {p->cell_multiplier[0], p->cell_multiplier[1], p->cell_multiplier[2]};
  const int32_t left[3] = {p->cell_left_mul[0], p->cell_left_mul[1], p->cell_left_mul[2]};
  const int32_t right[3] = {p->cell_right_mul[0], p->cell_right_mul[1], p->cell_right_mul[2]};
  const int32_t clip = p->cell_clip, zero_point = p->hidden_zero_point, lo = p->hidden_min, hi = p->hidden_max;
  for (int32_t i = 0; i < size; ++i) {
    const int32_t f = mote_logistic_s16_of(3 * forget[i], table), g = mote_tanh_s16_of(3 * cell[i], table);
    const int32_t kept = mote_lstm_saturate16(mote_lstm_scale(f * c[i], m, left, right, 0));
    const int32_t added = mote_lstm_saturate16(mote_lstm_scale(mote_logistic_s16_of(3 * in[i], table) * g, m, left,
                                                               right, 1));
    int32_t v = mote_lstm_saturate16(kept + added);
    if (clip >= 0) v = mote_clamp(v, -clip, clip);
    c[i] = (int16_t)v;
    const int32_t squashed = mote_tanh_s16_of(mote_sigmoid_s16_input(&cell_tanh, v), table);
    const int32_t o = mote_logistic_s16_of(3 * out[i], table);
    const int32_t q = mote_clamp(mote_add_wrap(zero_point, mote_lstm_scale(squashed * o, m, left, right, 2)), lo, hi);
    if (wide) {
      ((int16_t *)h)[i] = (int16_t)q;
      ((int16_t *)y)[i] = (int16_t)q;
    } else {
      ((int8_t *)h)[i] = (int8_t)q;
      ((int8_t *)y)[i] = (int8_t)q;
    }
  }
}

/* One time step of `rows` batch rows: x [rows][input_size]; h, c and y [rows][units]. */
static inline void mote_lstm_step(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c,
                                  void *y, int16_t *buffers, int wide) {
  const int32_t size = rows * p->units;
  mote_lstm_gate(p, 0, rows, x, h, buffers, wide); /* every gate reads h before this step's update */
  mote_lstm_gate(p, 1, rows, x, h, buffers + size, wide);
  mote_lstm_gate(p, 2, rows, x, h, buffers + 2 * size, wide);
  mote_lstm_gate(p, 3, rows, x, h, buffers + 3 * size, wide);
  mote_lstm_cell(p, size, buffers, h, c, y, wide);
}

/* One time step of `rows` batch rows into h, c and y, the gates' buffers given: mote_lstm_step's signature. */
typedef void (*mote_lstm_step_fn)(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c,
                                  void *y, int16_t *buffers, int wide);

/* Every time step of every batch in TFLite Micro's order, each by `step` (a constant where it is inlined). */
static inline void mote_lstm_sequence(const mote_lstm_int_params *p, const void *input, void *hidden, int16_t *cell,
                                      void *output, mote_scratch scratch, int wide, mote_lstm_step_fn step) {
  const int32_t in = p->input_size, n = p->units, width = wide ? 2 : 1;
  int16_t *buffers = (int16_t *)(void *)scratch.buf;
  const int8_t *x = (const int8_t *)input;
  int8_t *h = (int8_t *)hidden, *y = (int8_t *)output;
  if (p->time_major) {
    for (int32_t t = 0; t < p->steps; ++t) {
      step(p, p->batches, x + t * p->batches * in * width, h, cell, y + t * p->batches * n * width, buffers, wide);
    }
    return;
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t t = 0; t < p->steps; ++t) {
      step(p, 1, x + (b * p->steps + t) * in * width, h + b * n * width, cell + b * n,
           y + (b * p->steps + t) * n * width, buffers, wide);
    }
  }
}

#endif

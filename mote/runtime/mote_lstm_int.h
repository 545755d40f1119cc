/* The integer UNIDIRECTIONAL_SEQUENCE_LSTM of TFLite Micro (see mote/ops/lstm_int.py), for int8 activations
 * (wide = 0: int32 sums and biases) or int16 ones (wide = 1: int64 sums and biases); int8 weights, an int16
 * cell state. mote_lstm_s8 and mote_lstm_s16 call it with a constant, so each compiles to its own loops. */
#ifndef MOTE_LSTM_INT_H
#define MOTE_LSTM_INT_H

#include "mote_fixedpoint.h"
#include "mote_logistic_s16.h"
#include "mote_tanh_s16.h"

typedef struct {
  int32_t time_major;           /* input and output [steps][batches][...] (1) or [batches][steps][...] (0) */
  int32_t batches, steps, input_size, units;
  const int32_t *gate_multiplier;       /* [8]: the input FCs of the gates (input, forget, cell, output), then */
  const int32_t *gate_shift;            /* the recurrent FCs: each into the gates' int16 scale 2^-12 */
  int32_t forget_multiplier, forget_shift;  /* f * c -> c */
  int32_t update_multiplier, update_shift;  /* i * g -> c */
  int32_t hidden_multiplier, hidden_shift;  /* tanh(c) * o -> h */
  int32_t hidden_zero_point, hidden_min, hidden_max;
  int32_t cell_clip;                        /* -1: none */
  int32_t cell_tanh_multiplier, cell_tanh_shift; /* tanh(c): c in the sigmoid table's steps */
  const int8_t *input_weights;     /* [4][units][input_size] */
  const int8_t *recurrent_weights; /* [4][units][units] */
  const void *folded;              /* [8][units]: int32 (wide = 0) or int64 (wide = 1): each FC's constant part,
                                      the gate's bias and the zero points times the weights' row sums */
  const uint16_t *sigmoid_table;   /* [256] (mote/ops/sigmoid_table.py) */
} mote_lstm_int_params;

static inline int32_t mote_lstm_saturate16(int32_t v) { return mote_clamp(v, -32768, 32767); }

/* TFLite's integer FullyConnected of one row into the gates' int16 scale: FC k (gates' input FCs 0-3, their
 * recurrent FCs 4-7) of output u, its constant part first. */
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
static inline void mote_lstm_gate(const mote_lstm_int_params *p, int32_t g, int32_t rows, const void *x,
                                  const void *h, int16_t *out, int wide) {
  const int32_t n = p->units, in = p->input_size, width = wide ? 2 : 1;
  for (int32_t r = 0; r < rows; ++r) {
    const void *xr = (const int8_t *)x + r * in * width, *hr = (const int8_t *)h + r * n * width;
    for (int32_t u = 0; u < n; ++u) {
      const int32_t from_input = mote_lstm_fc(p, xr, p->input_weights + (g * n + u) * in, in, g, u, wide);
      const int32_t from_state = mote_lstm_fc(p, hr, p->recurrent_weights + (g * n + u) * n, n, 4 + g, u, wide);
      out[r * n + u] = (int16_t)mote_lstm_saturate16(from_input + from_state);
    }
  }
}

/* One time step of `rows` batch rows: x [rows][input_size]; h, c and y [rows][units]. */
static inline void mote_lstm_step(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c,
                                  void *y, int16_t *buffers, int wide) {
  const int32_t size = rows * p->units;
  const mote_sigmoid_s16_params gate = {size, 3, 0, p->sigmoid_table};
  const mote_sigmoid_s16_params cell_tanh = {size, p->cell_tanh_multiplier, p->cell_tanh_shift, p->sigmoid_table};
  int16_t *forget = buffers, *in = buffers + size, *cell = buffers + 2 * size, *out = buffers + 3 * size;
  mote_lstm_gate(p, 1, rows, x, h, forget, wide);
  mote_logistic_s16(&gate, forget, forget, MOTE_NO_SCRATCH);
  mote_lstm_gate(p, 0, rows, x, h, in, wide);
  mote_logistic_s16(&gate, in, in, MOTE_NO_SCRATCH);
  mote_lstm_gate(p, 2, rows, x, h, cell, wide);
  mote_tanh_s16(&gate, cell, cell, MOTE_NO_SCRATCH);
  mote_lstm_gate(p, 3, rows, x, h, out, wide); /* reads h before this step's update, as TFLite Micro does */
  mote_logistic_s16(&gate, out, out, MOTE_NO_SCRATCH);
  for (int32_t i = 0; i < size; ++i) {
    const int32_t kept = mote_lstm_saturate16(mote_requantize(forget[i] * c[i], p->forget_multiplier,
                                                              p->forget_shift));
    const int32_t added = mote_lstm_saturate16(mote_requantize(in[i] * cell[i], p->update_multiplier,
                                                               p->update_shift));
    int32_t v = mote_lstm_saturate16(kept + added);
    if (p->cell_clip >= 0) v = mote_clamp(v, -p->cell_clip, p->cell_clip);
    c[i] = (int16_t)v;
  }
  mote_tanh_s16(&cell_tanh, c, forget, MOTE_NO_SCRATCH); /* the forget gate's buffer is free again */
  for (int32_t i = 0; i < size; ++i) {
    const int32_t v = mote_clamp(mote_add_wrap(p->hidden_zero_point, mote_requantize(forget[i] * out[i],
                                 p->hidden_multiplier, p->hidden_shift)), p->hidden_min, p->hidden_max);
    if (wide) {
      ((int16_t *)h)[i] = (int16_t)v;
      ((int16_t *)y)[i] = (int16_t)v;
    } else {
      ((int8_t *)h)[i] = (int8_t)v;
      ((int8_t *)y)[i] = (int8_t)v;
    }
  }
}

static inline void mote_lstm_int(const mote_lstm_int_params *p, const void *input, void *hidden, int16_t *cell,
                                 void *output, mote_scratch scratch, int wide) {
  const int32_t in = p->input_size, n = p->units, width = wide ? 2 : 1;
  int16_t *buffers = (int16_t *)(void *)scratch.buf;
  const int8_t *x = (const int8_t *)input;
  int8_t *h = (int8_t *)hidden, *y = (int8_t *)output;
  if (p->time_major) {
    for (int32_t t = 0; t < p->steps; ++t) {
      mote_lstm_step(p, p->batches, x + t * p->batches * in * width, h, cell, y + t * p->batches * n * width,
                     buffers, wide);
    }
    return;
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t t = 0; t < p->steps; ++t) {
      mote_lstm_step(p, 1, x + (b * p->steps + t) * in * width, h + b * n * width, cell + b * n,
                     y + (b * p->steps + t) * n * width, buffers, wide);
    }
  }
}

#endif

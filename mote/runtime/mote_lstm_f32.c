#include "mote_lstm_f32.h"

#include "mote_elementwise_f32.h"
#include "mote_float.h"
#include "mote_logistic_f32.h"
#include "mote_tanhf.h"

#define LSTM_F32_MAX 0x1.fffffep127f

/* TFLite's float FullyConnected of one row: the sum in input order, then + bias, clamped to the float range. */
static float lstm_fc(const float *x, const float *w, int32_t depth, float bias) {
  float total = 0.0f;
  for (int32_t k = 0; k < depth; ++k) total += x[k] * w[k];
  return mote_clamp_f32(total + bias, -LSTM_F32_MAX, LSTM_F32_MAX);
}

/* gate g of `rows` rows: FC(x, W_g) + b_g + FC(h, R_g), into out [rows][units]. */
static void lstm_gate(const mote_lstm_f32_params *p, int32_t g, int32_t rows, const float *x, const float *h,
                      float *out) {
  const int32_t n = p->units, in = p->input_size;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t u = 0; u < n; ++u) {
      const float from_input = lstm_fc(x + r * in, p->input_weights + (g * n + u) * in, in, p->bias[g * n + u]);
      const float from_state = lstm_fc(h + r * n, p->recurrent_weights + (g * n + u) * n, n, 0.0f);
      out[r * n + u] = from_input + from_state;
    }
  }
}

/* One time step of `rows` batch rows: x [rows][input_size], h, c and y [rows][units]. */
static void lstm_step(const mote_lstm_f32_params *p, int32_t rows, const float *x, float *h, float *c, float *y,
                      float *buffers) {
  const int32_t size = rows * p->units;
  const mote_elementwise_f32_params all = {size};
  float *forget = buffers, *in = buffers + size, *cell = buffers + 2 * size, *out = buffers + 3 * size;
  lstm_gate(p, 1, rows, x, h, forget);
  mote_logistic_f32(&all, forget, forget, MOTE_NO_SCRATCH);
  lstm_gate(p, 0, rows, x, h, in);
  mote_logistic_f32(&all, in, in, MOTE_NO_SCRATCH);
  lstm_gate(p, 2, rows, x, h, cell);
  for (int32_t i = 0; i < size; ++i) cell[i] = mote_tanhf(cell[i]);
  lstm_gate(p, 3, rows, x, h, out);  /* reads h before this step's update, as TFLite Micro does */
  mote_logistic_f32(&all, out, out, MOTE_NO_SCRATCH);
  for (int32_t i = 0; i < size; ++i) {
    float v = mote_clamp_f32(forget[i] * c[i], -LSTM_F32_MAX, LSTM_F32_MAX);
    v = v + mote_clamp_f32(in[i] * cell[i], -LSTM_F32_MAX, LSTM_F32_MAX);
    if (p->cell_clip > 0.0f) {
      v = v < p->cell_clip ? v : p->cell_clip; /* std::max(std::min(clip, v), -clip): a NaN becomes clip */
      v = v < -p->cell_clip ? -p->cell_clip : v;
    }
    c[i] = v;
    h[i] = mote_clamp_f32(mote_tanhf(v) * out[i], -LSTM_F32_MAX, LSTM_F32_MAX);
  }
  for (int32_t i = 0; i < size; ++i) y[i] = h[i];
}

mote_status mote_lstm_f32(const mote_lstm_f32_params *p, const float *input, float *hidden, float *cell,
                          float *output, mote_scratch scratch) {
  const int32_t in = p->input_size, n = p->units;
  float *buffers = (float *)(void *)scratch.buf;
  if (p->time_major) {
    for (int32_t t = 0; t < p->steps; ++t) {
      lstm_step(p, p->batches, input + t * p->batches * in, hidden, cell, output + t * p->batches * n, buffers);
    }
    return MOTE_OK;
  }
  for (int32_t b = 0; b < p->batches; ++b) {
    for (int32_t t = 0; t < p->steps; ++t) {
      lstm_step(p, 1, input + (b * p->steps + t) * in, hidden + b * n, cell + b * n, output + (b * p->steps + t) * n,
                buffers);
    }
  }
  return MOTE_OK;
}

#include "mote_lstm_blocked_s8.h"

#include "mote_conv_common.h"

#if defined(__GNUC__)
#define LSTM_BLOCK_INLINE static inline __attribute__((always_inline))
#else
#define LSTM_BLOCK_INLINE static inline
#endif

/* acc[j] = start[j] + sum_k x[k] . w[width * k + j] for j < width over `pairs` input pairs, each product
 * of a pair of inputs and a pair of weights in one multiply (mote_pair_dot, mote_conv_common.h: inputs packed
 * as x0 * 2^16 + x1, weights as w0 + w1 * 2^16 with |w| <= 127). Each caller passes a constant width, so the
 * loops over j unroll and the sums stay in registers. No sum leaves int32: each is at most the FC's constant
 * part plus 128 times the row's absolute weights (checked at compile time). */
LSTM_BLOCK_INLINE void dot_block(const int32_t *x, const int32_t *w, int32_t pairs, int32_t width,
                                 const int32_t *start, int32_t *acc) {
  int32_t a[16];
#pragma GCC unroll 16
  for (int32_t j = 0; j < width; ++j) a[j] = start[j];
  for (const int32_t *end = x + pairs; x != end; ++x, w += width) {
    const int32_t u = *x;
#pragma GCC unroll 16
    for (int32_t j = 0; j < width; ++j) a[j] += mote_pair_dot(u, w[j]);
  }
#pragma GCC unroll 16
  for (int32_t j = 0; j < width; ++j) acc[j] = a[j];
}

/* dot_block for a block of 16, 8 or 4 rows, its width a constant in each case. */
static void dot_any(const int32_t *x, const int32_t *w, int32_t pairs, int32_t width, const int32_t *start,
                    int32_t *acc) {
  if (width == 16) {
    dot_block(x, w, pairs, 16, start, acc);
  } else if (width == 8) {
    dot_block(x, w, pairs, 8, start, acc);
  } else {
    dot_block(x, w, pairs, 4, start, acc);
  }
}

/* The n int8 values v packed in pairs for mote_pair_dot, a zero after an odd last one. */
static void pack_pairs(const int8_t *v, int32_t n, int32_t *pairs) {
  int32_t k = 0;
  for (; k + 1 < n; k += 2) *pairs++ = (int32_t)((uint32_t)v[k] << 16) + v[k + 1];
  if (k < n) *pairs = (int32_t)((uint32_t)v[k] << 16);
}

/* mote_conv_scale (mote_output_stage.h) with the products' factors derived once per gate, and its rounding
 * shift skipped where there is none (the gates' 2^-12 often takes a left shift). */
typedef struct {
  uint32_t left, m2, r2, negative; /* 2^left shift, 2 * multiplier, the right shift's factor, its sign fix */
} lstm_stage;

static inline lstm_stage lstm_stage_at(const mote_lstm_int_params *p, int32_t k) {
  const uint32_t right = (uint32_t)p->gate_right_mul[k];
  const lstm_stage s = {(uint32_t)p->gate_left_mul[k], (uint32_t)p->gate_multiplier[k] << 1,
                        (right << 1) - (right >> 31), right <= 0x40000000u ? 1u : 0u};
  return s;
}

static inline int32_t lstm_scale16(int32_t acc, const lstm_stage *s) {
  const uint32_t x = (uint32_t)acc * s->left;
  const int64_t xm = (int64_t)(int32_t)x * (int64_t)s->m2;
  const int32_t v = (int32_t)((uint32_t)((uint64_t)xm >> 32) + ((uint32_t)xm >> 31));
  if (s->r2 == 0xFFFFFFFFu) return mote_lstm_saturate16(v); /* no right shift: mote_conv_scale's last step is v */
  const int32_t y = (int32_t)((uint32_t)v - (((uint32_t)v >> 31) & s->negative));
  const int64_t yr = (int64_t)y * (int64_t)s->r2;
  return mote_lstm_saturate16((int32_t)((uint32_t)((uint64_t)yr >> 32) + ((uint32_t)yr >> 31)));
}

/* The four gates' pre-activations of one batch row into gates [4 units]: for each of the 4 * units weight
 * rows, block by block, its input FC on x and its recurrent FC on h, each rescaled to the gates' int16
 * scale by its gate's multiplier and saturated, then their saturated sum. */
static void gates_of_row(const mote_lstm_int_params *p, const int32_t *x, const int32_t *h, int16_t *gates) {
  const int32_t n = p->units, rows = 4 * n, in_pairs = (p->input_size + 1) / 2, h_pairs = (n + 1) / 2;
  const int32_t *folded = (const int32_t *)p->folded;
  const int32_t *wx = (const int32_t *)p->input_weights;
  const int32_t *wh = (const int32_t *)p->recurrent_weights;
  int32_t gate = 0, gate_end = n;
  lstm_stage from_input = lstm_stage_at(p, 0), from_state = lstm_stage_at(p, 4);
  for (int32_t o = 0, width; o < rows; o += width, wx += width * in_pairs, wh += width * h_pairs) {
    width = rows - o >= 16 ? 16 : rows - o >= 8 ? 8 : 4;
    int32_t acc_x[16], acc_h[16];
    dot_any(x, wx, in_pairs, width, folded + o, acc_x);
    dot_any(h, wh, h_pairs, width, folded + rows + o, acc_h);
    for (int32_t j = 0; j < width; ++j) {
      if (o + j == gate_end) { /* the next gate's rows */
        ++gate, gate_end += n;
        from_input = lstm_stage_at(p, gate), from_state = lstm_stage_at(p, 4 + gate);
      }
      gates[o + j] = (int16_t)mote_lstm_saturate16(lstm_scale16(acc_x[j], &from_input) +
                                                   lstm_scale16(acc_h[j], &from_state));
    }
  }
}

/* One time step of `rows` batch rows, one row at a time (the rows share nothing). The buffers: the row's input
 * and hidden state packed in pairs, then its four gates. */
static void step(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c, void *y,
                 int16_t *buffers, int wide) {
  (void)wide;
  const int32_t n = p->units, in = p->input_size, in_pairs = (in + 1) / 2;
  int32_t *x_pairs = (int32_t *)(void *)buffers, *h_pairs = x_pairs + in_pairs;
  int16_t *gates = (int16_t *)(void *)(h_pairs + (n + 1) / 2);
  for (int32_t r = 0; r < rows; ++r) {
    int8_t *hr = (int8_t *)h + r * n;
    pack_pairs((const int8_t *)x + r * in, in, x_pairs);
    pack_pairs(hr, n, h_pairs); /* h before this step's update */
    gates_of_row(p, x_pairs, h_pairs, gates);
    mote_lstm_cell(p, n, gates, hr, c + r * n, (int8_t *)y + r * n, 0);
  }
}

mote_status mote_lstm_blocked_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                                 int8_t *output, mote_scratch scratch) {
  mote_lstm_sequence(p, input, hidden, cell, output, scratch, 0, step);
  return MOTE_OK;
}

#include "mote_lstm_s8.h"

/* One time step, its activations' width a constant. */
static void step_s8(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c, void *y,
                    int16_t *buffers, int wide) {
  (void)wide;
  mote_lstm_step(p, rows, x, h, c, y, buffers, 0);
}

mote_status mote_lstm_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                          int8_t *output, mote_scratch scratch) {
  mote_lstm_sequence(p, input, hidden, cell, output, scratch, 0, step_s8);
  return MOTE_OK;
}

#include "mote_lstm_s16.h"

/* One time step, its activations' width a constant. */
static void step_s16(const mote_lstm_int_params *p, int32_t rows, const void *x, void *h, int16_t *c, void *y,
                    int16_t *buffers, int wide) {
  (void)wide;
  mote_lstm_step(p, rows, x, h, c, y, buffers, 1);
}

mote_status mote_lstm_s16(const mote_lstm_int_params *p, const int16_t *input, int16_t *hidden, int16_t *cell,
                          int16_t *output, mote_scratch scratch) {
  mote_lstm_sequence(p, input, hidden, cell, output, scratch, 1, step_s16);
  return MOTE_OK;
}

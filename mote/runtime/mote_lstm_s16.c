#include "mote_lstm_s16.h"

mote_status mote_lstm_s16(const mote_lstm_int_params *p, const int16_t *input, int16_t *hidden, int16_t *cell,
                          int16_t *output, mote_scratch scratch) {
  mote_lstm_int(p, input, hidden, cell, output, scratch, 1);
  return MOTE_OK;
}

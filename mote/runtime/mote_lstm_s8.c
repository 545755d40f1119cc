#include "mote_lstm_s8.h"

mote_status mote_lstm_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                          int8_t *output, mote_scratch scratch) {
  mote_lstm_int(p, input, hidden, cell, output, scratch, 0);
  return MOTE_OK;
}

#ifndef MOTE_LSTM_S8_H
#define MOTE_LSTM_S8_H

#include "mote_lstm_int.h"

/* int8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 cell state, int32 biases), bit-exact with TFLite Micro
 * (mote/ops/lstm_int.py). Updates `hidden` and `cell` [batches][units]; scratch: four int16 gate buffers of one step's rows (8 * rows * units
 * bytes, rows = batches when time_major, else 1). */
mote_status mote_lstm_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                          int8_t *output, mote_scratch scratch);

#endif

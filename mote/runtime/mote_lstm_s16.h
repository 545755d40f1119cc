#ifndef MOTE_LSTM_S16_H
#define MOTE_LSTM_S16_H

#include "mote_lstm_int.h"

/* 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 activations, int8 weights, int64 biases), bit-exact with TFLite
 * Micro (mote/ops/lstm_int.py). Updates `hidden` and `cell` [batches][units]; scratch: four int16 gate buffers of one step's rows (8 * rows * units
 * bytes, rows = batches when time_major, else 1). */
mote_status mote_lstm_s16(const mote_lstm_int_params *p, const int16_t *input, int16_t *hidden, int16_t *cell,
                          int16_t *output, mote_scratch scratch);

#endif

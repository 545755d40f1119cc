#ifndef MOTE_LSTM_BLOCKED_S16_H
#define MOTE_LSTM_BLOCKED_S16_H

#include "mote_lstm_int.h"

/* 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM for scalar cores, bit-exact with TFLite Micro (mote/ops/lstm_blocked.py):
 * mote_lstm_s16's arithmetic with each fully connected product of the four gates computed 16, 8 or 4 weight
 * rows at a time in int32 sums (TFLite Micro's int64 ones hold the same integers: the compiler checks that
 * none can leave int32). The weights come in blocks of rows, each int8 [depth][rows]; `folded` is int32
 * [8][units]. Updates `hidden` and `cell` [batches][units]; scratch: the four int16 gates of one row. */
mote_status mote_lstm_blocked_s16(const mote_lstm_int_params *p, const int16_t *input, int16_t *hidden,
                                  int16_t *cell, int16_t *output, mote_scratch scratch);

#endif

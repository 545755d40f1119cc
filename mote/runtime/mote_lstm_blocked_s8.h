#ifndef MOTE_LSTM_BLOCKED_S8_H
#define MOTE_LSTM_BLOCKED_S8_H

#include "mote_lstm_int.h"

/* int8 UNIDIRECTIONAL_SEQUENCE_LSTM for scalar cores, bit-exact with TFLite Micro (mote/ops/lstm_blocked.py):
 * mote_lstm_s8's arithmetic with each fully connected product of the four gates computed 16, 8 or 4 weight
 * rows at a time, their sums in registers. The weights come in blocks of rows, each [depth][rows] (the four
 * gates' rows one after the other); `folded` as for mote_lstm_s8. Updates `hidden` and `cell`
 * [batches][units]; scratch: the four int16 gates of one row (8 * units bytes). */
mote_status mote_lstm_blocked_s8(const mote_lstm_int_params *p, const int8_t *input, int8_t *hidden, int16_t *cell,
                                 int8_t *output, mote_scratch scratch);

#endif

#ifndef MOTE_LSTM_F32_H
#define MOTE_LSTM_F32_H

#include "mote_types.h"

typedef struct {
  int32_t time_major;          /* input and output [steps][batches][...] (1) or [batches][steps][...] (0) */
  int32_t batches, steps, input_size, units;
  float cell_clip;             /* 0: none */
  const float *input_weights;  /* [4 gates: input, forget, cell, output][units][input_size] */
  const float *recurrent_weights; /* [4][units][units] */
  const float *bias;           /* [4][units] */
} mote_lstm_f32_params;

/* float32 UNIDIRECTIONAL_SEQUENCE_LSTM in TFLite Micro's order of operations (mote/ops/lstm.py). Updates
 * `hidden` and `cell` [batches][units]; scratch: four gate buffers of one step's rows (4 * rows * units
 * floats, rows = batches when time_major, else 1). */
mote_status mote_lstm_f32(const mote_lstm_f32_params *p, const float *input, float *hidden, float *cell,
                          float *output, mote_scratch scratch);

#endif

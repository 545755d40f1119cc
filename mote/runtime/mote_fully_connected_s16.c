#include "mote_fully_connected_s16.h"

#include "mote_output_s16.h"

mote_status mote_fully_connected_s16(const mote_fully_connected_s16_params *p, const int16_t *input,
                                     int16_t *output, mote_scratch scratch) {
  (void)scratch;
  for (int32_t b = 0; b < p->batches; ++b) {
    const int16_t *x = input + b * p->accum_depth;
    for (int32_t o = 0; o < p->out_depth; ++o) {
      const int8_t *w = p->weights + o * p->accum_depth;
      int64_t acc = 0;
      if (p->narrow) {
        acc = mote_dot_s16(w, x, p->filter_offset, p->input_offset, p->accum_depth);
      } else {
        for (int32_t d = 0; d < p->accum_depth; ++d) {
          acc += (int64_t)(w[d] + p->filter_offset) * (x[d] + p->input_offset);
        }
      }
      output[b * p->out_depth + o] = mote_output_s16(acc + p->bias[o], p->acc64, p->multiplier[o], p->shift[o],
                                                     p->output_offset, p->act_min, p->act_max);
    }
  }
  return MOTE_OK;
}

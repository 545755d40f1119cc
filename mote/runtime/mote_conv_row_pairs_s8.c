#include "mote_conv_row_pairs_s8.h"

#include "mote_row_pairs_body.h"

mote_status mote_conv_row_pairs_s8(const mote_fully_connected_row_pairs_params *p, const int8_t *input,
                                   int8_t *output, mote_scratch scratch) {
  (void)scratch;
  return row_pairs_run(p, input, output);
}

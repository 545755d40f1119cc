#include "mote_depthwise_conv_rows_s8.h"

#include "mote_depthwise_conv_rows_common.h"

mote_status mote_depthwise_conv_rows_s8(const mote_depthwise_conv_rows_params *p, const int8_t *input,
                                        int8_t *output, mote_scratch scratch) {
  (void)scratch;
  mote_depthwise_rows(p, NULL, input, output);
  return MOTE_OK;
}

#ifndef MOTE_CONV_1X1_S8_H
#define MOTE_CONV_1X1_S8_H

#include "mote_types.h"

/* A 1x1, stride-1, ungrouped convolution: a matrix product over the pixels
 * output[pixel][oc] = requantize(bias[oc] + sum_ic input[pixel][ic] * weights[oc][ic]). */
typedef struct {
  int32_t pixels;                    /* batches * height * width */
  int32_t in_ch, out_ch;
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;             /* [out_ch][in_ch], zero point 0 */
  const int32_t *bias;               /* [out_ch], never NULL: the model's bias (or 0) plus
                                        input_offset * sum_ic weights[oc][ic], folded at compile time;
                                        |bias| + in_ch * 2^14 < 2^31 */
  const int32_t *multiplier;         /* [out_ch]: Q31 multiplier */
  const int32_t *left_mul, *right_mul; /* [out_ch]: TFLite's shift as 2^max(shift, 0) and
                                        2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_conv_1x1_params;

/* Bit-exact with mote_conv_s8 on a 1x1 filter with stride 1 and one group. No scratch: the
 * input is read in place (NHWC pixels are rows of the matrix). Pixels go four at a time, output
 * channels sixteen at a time (two per dot product), then two at a time for the last out_ch % 16. */
mote_status mote_conv_1x1_s8(const mote_conv_1x1_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif

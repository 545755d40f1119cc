/* The 8- and 16-bit transposed convolutions (mote_transpose_conv_s8, mote_transpose_conv_s16): one scatter
 * into a scratch accumulator of the output's size (int32 for int8, int64 for int16), then requantization
 * per output channel (mote/ops/transpose_conv.py). */
#ifndef MOTE_TRANSPOSE_CONV_INT_H
#define MOTE_TRANSPOSE_CONV_INT_H

#include "mote_types.h"

typedef struct {
  int32_t batches, in_h, in_w, in_ch, out_h, out_w, out_ch;
  int32_t filter_h, filter_w, stride_h, stride_w, pad_top, pad_left;
  const int8_t *weights;       /* [out_ch][filter_h][filter_w][in_ch] */
  const int64_t *bias;         /* [out_ch] */
  int32_t input_offset, output_offset;
  int32_t act_min, act_max;
  const int32_t *multiplier;   /* [out_ch], Q31 */
  const int32_t *shift;        /* [out_ch], > 0: left */
} mote_transpose_conv_int_params;

/* Every input pixel's products (x + input_offset) * w, added to the accumulator `acc` (zeroed first) at the
 * output positions they reach; ACC is the accumulator's type, IN the input's. */
#define MOTE_TRANSPOSE_CONV_SCATTER(p, input, acc, ACC)                                                       \
  for (int32_t n = 0; n < (p)->batches; ++n) {                                                                \
    for (int32_t iy = 0; iy < (p)->in_h; ++iy) {                                                              \
      for (int32_t ix = 0; ix < (p)->in_w; ++ix) {                                                            \
        for (int32_t ic = 0; ic < (p)->in_ch; ++ic) {                                                         \
          const ACC value = (ACC)input[((n * (p)->in_h + iy) * (p)->in_w + ix) * (p)->in_ch + ic] +          \
                            (p)->input_offset;                                                                \
          for (int32_t fy = 0; fy < (p)->filter_h; ++fy) {                                                    \
            const int32_t oy = iy * (p)->stride_h - (p)->pad_top + fy;                                        \
            if (oy < 0 || oy >= (p)->out_h) continue;                                                         \
            for (int32_t fx = 0; fx < (p)->filter_w; ++fx) {                                                  \
              const int32_t ox = ix * (p)->stride_w - (p)->pad_left + fx;                                     \
              if (ox < 0 || ox >= (p)->out_w) continue;                                                       \
              ACC *out = (acc) + ((n * (p)->out_h + oy) * (p)->out_w + ox) * (p)->out_ch;                     \
              const int8_t *w = (p)->weights + (fy * (p)->filter_w + fx) * (p)->in_ch + ic;                   \
              const int32_t step = (p)->filter_h * (p)->filter_w * (p)->in_ch;                                \
              for (int32_t oc = 0; oc < (p)->out_ch; ++oc) out[oc] += value * w[oc * step];                   \
            }                                                                                                 \
          }                                                                                                   \
        }                                                                                                     \
      }                                                                                                       \
    }                                                                                                         \
  }

#endif

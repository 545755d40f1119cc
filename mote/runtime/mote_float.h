/* Helpers of the float32 kernels. */
#ifndef MOTE_FLOAT_H
#define MOTE_FLOAT_H

/* TFLite's ActivationFunctionWithMinMax, std::min(std::max(x, lo), hi): a NaN passes through. */
static inline float mote_clamp_f32(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return hi < x ? hi : x;
}

/* Output channels per register block of the float convolution and fully connected kernels: eight
 * accumulators with a fixed count, which compilers keep in vector registers; each still sums its own
 * products in the reference order. */
#define MOTE_F32_BLOCK 8

#endif

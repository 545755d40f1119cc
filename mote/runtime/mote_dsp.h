/* The Armv7E-M / Armv8-M DSP extension's dual 16-bit multiply-accumulate for the int8 kernels, and its
 * operand layout.
 *
 * SMLAD multiplies two pairs of signed halfwords and adds both products to an accumulator: two MACs in
 * one instruction. Its operands are words holding two int16 values. An int8 word x = (x0, x1, x2, x3)
 * widens in two instructions: SXTB16(x) = (x0, x2) and SXTB16(x ROR 8) = (x1, x3). So a group of four
 * taps becomes the two words (x0, x2), (x1, x3), and the weights, prepared at compile time as int16,
 * are laid out the same way: w0, w2, w1, w3 per group of four taps. Activations are widened once into
 * scratch; weights are never widened at run time.
 *
 * On a core without the DSP extension (and on the host) the same operations are written in C, so every
 * kernel built on this header computes the same integers everywhere. */
#ifndef MOTE_DSP_H
#define MOTE_DSP_H

#include <stdint.h>
#include "mote_libc.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>

static inline int32_t mote_smlad(uint32_t x, uint32_t w, int32_t acc) {
  return __smlad((int16x2_t)x, (int16x2_t)w, acc);
}
static inline uint32_t mote_widen_even(uint32_t x) { return (uint32_t)__sxtb16((int8x4_t)x); }
/* SXTB16 with its operand rotated: one instruction. clang folds the rotation into the operand; gcc 12
 * would rotate first, then extend, so it gets the instruction spelled out. */
static inline uint32_t mote_widen_odd(uint32_t x) {
#if defined(__clang__)
  return (uint32_t)__sxtb16((int8x4_t)((x >> 8) | (x << 24)));
#else
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
#endif
}
/* acc + the product of the low (bottom) or high (top) halfwords: one SMLABB / SMLATT. */
static inline int32_t mote_smlabb(uint32_t x, uint32_t w, int32_t acc) {
  return __smlabb((int32_t)x, (int32_t)w, acc);
}
static inline int32_t mote_smlatt(uint32_t x, uint32_t w, int32_t acc) {
  return __smlatt((int32_t)x, (int32_t)w, acc);
}
/* Both halfwords of x less those of y, each modulo 2^16: one SSUB16. */
static inline uint32_t mote_sub16(uint32_t x, uint32_t y) { return (uint32_t)__ssub16((int16x2_t)x, (int16x2_t)y); }
#else
static inline int32_t mote_smlad(uint32_t x, uint32_t w, int32_t acc) {
  const int32_t lo = (int32_t)(int16_t)(x & 0xFFFFu) * (int32_t)(int16_t)(w & 0xFFFFu);
  const int32_t hi = (int32_t)(int16_t)(x >> 16) * (int32_t)(int16_t)(w >> 16);
  return (int32_t)((uint32_t)acc + (uint32_t)lo + (uint32_t)hi); /* wraps, as SMLAD does */
}
static inline uint32_t mote_sxtb16(uint32_t x) {
  return ((uint32_t)(int32_t)(int8_t)(x & 0xFFu) & 0xFFFFu) | ((uint32_t)(int32_t)(int8_t)((x >> 16) & 0xFFu) << 16);
}
static inline uint32_t mote_widen_even(uint32_t x) { return mote_sxtb16(x); }
static inline uint32_t mote_widen_odd(uint32_t x) { return mote_sxtb16(x >> 8); }
static inline int32_t mote_smlabb(uint32_t x, uint32_t w, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)((int32_t)(int16_t)(x & 0xFFFFu) * (int32_t)(int16_t)(w & 0xFFFFu)));
}
static inline int32_t mote_smlatt(uint32_t x, uint32_t w, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)((int32_t)(int16_t)(x >> 16) * (int32_t)(int16_t)(w >> 16)));
}
static inline uint32_t mote_sub16(uint32_t x, uint32_t y) {
  return ((x - y) & 0xFFFFu) | (((x >> 16) - (y >> 16)) << 16);
}
#endif

/* Four int8 values at `p` (any alignment) as one little-endian word: one LDR where the core allows
 * unaligned word loads (freestanding builds do not treat memcpy as a builtin, hence the builtin). */
static inline uint32_t mote_load4(const int8_t *p) {
  uint32_t x;
#if defined(__GNUC__)
  __builtin_memcpy(&x, p, 4);
#else
  memcpy(&x, p, 4);
#endif
  return x;
}

/* Widens `groups` groups of four int8 taps at `src` into the layout above: group g's two words at
 * dst[g * stride], dst[g * stride + 1]. */
static inline void mote_dsp_widen(const int8_t *src, int32_t groups, uint32_t *dst, int32_t stride) {
  for (int32_t g = 0; g < groups; ++g, src += 4, dst += stride) {
    const uint32_t x = mote_load4(src);
    dst[0] = mote_widen_even(x);
    dst[1] = mote_widen_odd(x);
  }
}

/* The rounded high word of a 32 x 32-bit product, (a * b + 2^31) >> 32: one SMMULR. */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
static inline int32_t mote_smmulr(int32_t a, int32_t b) {
  int32_t r;
  __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#else
static inline int32_t mote_smmulr(int32_t a, int32_t b) {
  return (int32_t)(((int64_t)a * b + ((int64_t)1 << 31)) >> 32);
}
#endif

/* One output channel's requantization, prepared at compile time (mote.ops.dsp_kernels.dsp_stage):
 * TFLite's MultiplyByQuantizedMultiplier(acc, multiplier, shift) as
 *   a = acc << (left + 1);  y = (a * multiplier + 2^31) >> 32;  r = (y + round - (y < 0 ? neg : 0)) >> right
 * where y is the rounding doubling high multiply of acc << left (its nudge for a negative product works out
 * to the same floor shift as for a positive one; the doubling moved into the shift makes it one SMMULR), and
 * round = 2^(right - 1), neg = 1 when right > 0 (round half away from zero), both 0 otherwise. The compiler
 * checks that a and y + round cannot overflow for the layer's accumulators (else the layer takes another
 * kernel), so every step is exact in 32 bits.
 * A channel's row of MOTE_DSP_STAGE words: multiplier, left + 1, round, right, and -1 when right > 0 else 0. */
#define MOTE_DSP_STAGE 5

static inline int32_t mote_dsp_requantize(int32_t acc, const int32_t *st, int32_t offset, int32_t lo, int32_t hi) {
  const int32_t a = (int32_t)((uint32_t)acc << st[1]);
  const int32_t y = mote_smmulr(a, st[0]);
  const int32_t negative = -(int32_t)((uint32_t)y >> 31);
  const int32_t r = ((y + st[2]) + (negative & st[4])) >> st[3];
  const int32_t v = r + offset;
  const int32_t below = v > hi ? hi : v;
  return below < lo ? lo : below;
}

/* The register blocks' inner loops, over `groups` groups of four taps (two words of int16 pairs each):
 *   2x2: two pixels' windows x[groups][2 pixels][2] by two channels' weights w[groups][2 channels][2],
 *        acc = {pixel 0 channel 0, pixel 0 channel 1, pixel 1 channel 0, pixel 1 channel 1};
 *   1x4: one window x[groups][2] by four channels' weights w[groups][4 channels][2], acc[channel].
 * On Arm they are written in assembly, so that every compiler keeps the block in registers (thirteen in
 * the 2x2 loop: four accumulators, four activation words, two weight words, two pointers, a count) and
 * issues 13 instructions per 16 MACs (2x2, two groups per iteration) or 15 (1x4). groups >= 1. */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* One group of the 2x2 block: twelve instructions for sixteen MACs. */
#define MOTE_DSP_GROUP_2X2                              \
  "ldrd %[x0a], %[x0b], [%[x]], #8\n\t"                 \
  "ldrd %[x1a], %[x1b], [%[x]], #8\n\t"                 \
  "ldrd %[w0], %[w1], [%[w]], #8\n\t"                   \
  "smlad %[a00], %[x0a], %[w0], %[a00]\n\t"             \
  "smlad %[a10], %[x1a], %[w0], %[a10]\n\t"             \
  "smlad %[a00], %[x0b], %[w1], %[a00]\n\t"             \
  "smlad %[a10], %[x1b], %[w1], %[a10]\n\t"             \
  "ldrd %[w0], %[w1], [%[w]], #8\n\t"                   \
  "smlad %[a01], %[x0a], %[w0], %[a01]\n\t"             \
  "smlad %[a11], %[x1a], %[w0], %[a11]\n\t"             \
  "smlad %[a01], %[x0b], %[w1], %[a01]\n\t"             \
  "smlad %[a11], %[x1b], %[w1], %[a11]\n\t"

/* Two groups per iteration (an odd count starts with one alone), so the loop's count and branch are
 * paid once per 32 MACs. */
static inline void mote_dsp_dot_2x2(const uint32_t *x, const uint32_t *w, int32_t groups, int32_t acc[4]) {
  int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
  uint32_t x0a, x0b, x1a, x1b, w0, w1;
  __asm__ volatile(
      "tst %[n], #1\n\t"
      "beq 1f\n\t"
      MOTE_DSP_GROUP_2X2
      "subs %[n], %[n], #1\n\t"
      "beq 2f\n"
      "1:\n\t"
      MOTE_DSP_GROUP_2X2
      MOTE_DSP_GROUP_2X2
      "subs %[n], %[n], #2\n\t"
      "bne 1b\n"
      "2:"
      : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x), [w] "+r"(w),
        [n] "+r"(groups), [x0a] "=&r"(x0a), [x0b] "=&r"(x0b), [x1a] "=&r"(x1a), [x1b] "=&r"(x1b),
        [w0] "=&r"(w0), [w1] "=&r"(w1)
      :
      : "cc", "memory");
  acc[0] = a00, acc[1] = a01, acc[2] = a10, acc[3] = a11;
}

static inline void mote_dsp_dot_1x4(const uint32_t *x, const uint32_t *w, int32_t groups, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  uint32_t xa, xb, w0, w1;
  __asm__ volatile(
      "1:\n\t"
      "ldrd %[xa], %[xb], [%[x]], #8\n\t"
      "ldrd %[w0], %[w1], [%[w]], #8\n\t"
      "smlad %[a0], %[xa], %[w0], %[a0]\n\t"
      "smlad %[a0], %[xb], %[w1], %[a0]\n\t"
      "ldrd %[w0], %[w1], [%[w]], #8\n\t"
      "smlad %[a1], %[xa], %[w0], %[a1]\n\t"
      "smlad %[a1], %[xb], %[w1], %[a1]\n\t"
      "ldrd %[w0], %[w1], [%[w]], #8\n\t"
      "smlad %[a2], %[xa], %[w0], %[a2]\n\t"
      "smlad %[a2], %[xb], %[w1], %[a2]\n\t"
      "ldrd %[w0], %[w1], [%[w]], #8\n\t"
      "smlad %[a3], %[xa], %[w0], %[a3]\n\t"
      "smlad %[a3], %[xb], %[w1], %[a3]\n\t"
      "subs %[n], %[n], #1\n\t"
      "bne 1b"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w), [n] "+r"(groups),
        [xa] "=&r"(xa), [xb] "=&r"(xb), [w0] "=&r"(w0), [w1] "=&r"(w1)
      :
      : "cc", "memory");
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#else
static inline void mote_dsp_dot_2x2(const uint32_t *x, const uint32_t *w, int32_t groups, int32_t acc[4]) {
  for (int32_t g = 0; g < groups; ++g, x += 4, w += 4) {
    acc[0] = mote_smlad(x[1], w[1], mote_smlad(x[0], w[0], acc[0]));
    acc[1] = mote_smlad(x[1], w[3], mote_smlad(x[0], w[2], acc[1]));
    acc[2] = mote_smlad(x[3], w[1], mote_smlad(x[2], w[0], acc[2]));
    acc[3] = mote_smlad(x[3], w[3], mote_smlad(x[2], w[2], acc[3]));
  }
}

static inline void mote_dsp_dot_1x4(const uint32_t *x, const uint32_t *w, int32_t groups, int32_t acc[4]) {
  for (int32_t g = 0; g < groups; ++g, x += 2, w += 8) {
    for (int32_t j = 0; j < 4; ++j) acc[j] = mote_smlad(x[1], w[2 * j + 1], mote_smlad(x[0], w[2 * j], acc[j]));
  }
}
#endif

#endif

/* Int8 dot products for Armv6-M (Cortex-M0+): two products per 32 x 32 -> 32-bit multiply.
 *
 * Armv6-M has MULS (the low word of a 32-bit product, one cycle on most Cortex-M0+ parts) but no
 * dual 16-bit MAC, no long multiply and no shifted operands, and most of its ALU instructions reach
 * only r0-r7. Two taps x0, x1 (int8, |x| <= 128) are held as the pair word X = x0 + x1 * 2^16, and two
 * weights w0, w1 (in [-127, 127], prepared at compile time) as W = w1 + w0 * 2^16. Then, modulo 2^32,
 *   X * W = x0 * w1 + (x0 * w0 + x1 * w1) * 2^16,
 * with |x0 * w1| <= 16256 < 2^15 and |x0 * w0 + x1 * w1| <= 32512 < 2^15, so the sum is exact in 32 bits
 * and its high half, rounded (add bit 15), is the pair's dot product. ASRS #16 leaves bit 15 in the
 * carry flag and ADCS adds both: a multiply, a shift and an add-with-carry for two MACs.
 * Activations are widened once into pair words in scratch; weights are never widened at run time. */
#ifndef MOTE_ARMV6M_H
#define MOTE_ARMV6M_H

#include <stdint.h>

#include "mote_dsp.h"
#include "mote_output_stage.h"

/* Pair words per iteration of the inner loop: rows are zero-padded to a multiple of this many. */
#define MOTE_ARMV6M_UNROLL 4

static inline uint32_t mote_pair_word(int32_t x0, int32_t x1) { return (uint32_t)x0 + ((uint32_t)x1 << 16); }

/* acc + the rounded high half of X * W: the pair's dot product (see above). */
static inline int32_t mote_pair_mac(uint32_t x, uint32_t w, int32_t acc) {
  const uint32_t t = x * w;
  const int32_t high = (int32_t)(t >> 16) - (int32_t)((t >> 31) << 16); /* the arithmetic shift, portably */
  return (int32_t)((uint32_t)acc + (uint32_t)high + ((t >> 15) & 1u));
}

/* The `n` int8 taps at `src` as `pairs` pair words at dst (pairs >= ceil(n / 2)); zeros after the taps. */
static inline void mote_armv6m_widen(const int8_t *src, int32_t n, uint32_t *dst, int32_t pairs) {
  int32_t k = 0;
  for (; 2 * k + 1 < n; ++k) dst[k] = mote_pair_word(src[2 * k], src[2 * k + 1]);
  if (2 * k < n) {
    dst[k] = mote_pair_word(src[2 * k], 0);
    ++k;
  }
  for (; k < pairs; ++k) dst[k] = 0;
}

/* The one-multiply output stage in 32-bit pieces (mote/ops/armv6m_stage.py): per channel a row of
 * MOTE_ARMV6M_SINGLE words D, ml, mh, k0, k1, and an accumulator z whose bias holds the channel's constant.
 * Inside [0, D) the output is the low byte of zh mh + ((zl mh + zh ml + k1 + ((zl ml + k0) >> 16)) >> 16)
 * (zh, zl: z's halves), proven at compile time equal, offset included, to TFLite's requantization; below it
 * act_min, past it act_max (D = 0: every reachable accumulator is clamped). A channel whose ml is -1 has no
 * such constants: mote_dsp_requantize with its row of `stage` (MOTE_DSP_STAGE words). */
#define MOTE_ARMV6M_SINGLE 5

static inline int8_t mote_armv6m_output(int32_t z, const int32_t *single, const int32_t *stage, int32_t offset,
                                        int32_t lo, int32_t hi) {
  const uint32_t d = (uint32_t)single[0];
  if (MOTE_LIKELY((uint32_t)z < d)) {
    const uint32_t zl = (uint32_t)z & 0xFFFFu, zh = (uint32_t)z >> 16;
    const uint32_t ml = (uint32_t)single[1], mh = (uint32_t)single[2];
    const uint32_t t = (zl * ml + (uint32_t)single[3]) >> 16;
    const uint32_t u = (zl * mh + zh * ml + (uint32_t)single[4] + t) >> 16;
    return (int8_t)(uint8_t)(u + zh * mh);
  }
  if (single[1] >= 0) return (int8_t)(z < 0 ? lo : hi);
  return (int8_t)mote_dsp_requantize(z, stage, offset, lo, hi);
}

/* acc[j] += the dot product of the pair words x[0, pairs) with those of row j of a block of four,
 * w[pairs][4]; pairs a positive multiple of MOTE_ARMV6M_UNROLL. On Armv6-M it is assembly: the
 * compilers do not keep the four accumulators, the pointers and the two temporaries in the eight low
 * registers, nor use the carry; 18 instructions for each pair word (8 MACs) and 4 per iteration. */
#if defined(__thumb__) && !defined(__thumb2__)
/* gcc assembles Thumb-1 inline assembly in the divided syntax; the loop is written in the unified one. */
#if defined(__clang__)
#define MOTE_ARMV6M_UNIFIED ""
#define MOTE_ARMV6M_DIVIDED ""
#else
#define MOTE_ARMV6M_UNIFIED ".syntax unified\n\t"
#define MOTE_ARMV6M_DIVIDED "\n\t.syntax divided"
#endif
#define MOTE_ARMV6M_PAIR(xo, wo)                 \
  "ldr %[x], [%[px], #" #xo "]\n\t"              \
  "ldr %[t], [%[pw], #" #wo "]\n\t"              \
  "muls %[t], %[x], %[t]\n\t"                    \
  "asrs %[t], %[t], #16\n\t"                     \
  "adcs %[a0], %[a0], %[t]\n\t"                  \
  "ldr %[t], [%[pw], #" #wo "+4]\n\t"            \
  "muls %[t], %[x], %[t]\n\t"                    \
  "asrs %[t], %[t], #16\n\t"                     \
  "adcs %[a1], %[a1], %[t]\n\t"                  \
  "ldr %[t], [%[pw], #" #wo "+8]\n\t"            \
  "muls %[t], %[x], %[t]\n\t"                    \
  "asrs %[t], %[t], #16\n\t"                     \
  "adcs %[a2], %[a2], %[t]\n\t"                  \
  "ldr %[t], [%[pw], #" #wo "+12]\n\t"           \
  "muls %[t], %[x], %[t]\n\t"                    \
  "asrs %[t], %[t], #16\n\t"                     \
  "adcs %[a3], %[a3], %[t]\n\t"

static inline void mote_armv6m_dot_1x4(const uint32_t *x, const uint32_t *w, int32_t pairs, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  const uint32_t *end = x + pairs;
  uint32_t xr, t;
  __asm__ volatile(
      MOTE_ARMV6M_UNIFIED
      "1:\n\t"
      MOTE_ARMV6M_PAIR(0, 0)
      MOTE_ARMV6M_PAIR(4, 16)
      MOTE_ARMV6M_PAIR(8, 32)
      MOTE_ARMV6M_PAIR(12, 48)
      "adds %[px], #16\n\t"
      "adds %[pw], #64\n\t"
      "cmp %[px], %[end]\n\t"
      "bne 1b"
      MOTE_ARMV6M_DIVIDED
      : [a0] "+l"(a0), [a1] "+l"(a1), [a2] "+l"(a2), [a3] "+l"(a3), [px] "+l"(x), [pw] "+l"(w),
        [x] "=&l"(xr), [t] "=&l"(t)
      : [end] "h"(end)
      : "cc", "memory");
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#else
static inline void mote_armv6m_dot_1x4(const uint32_t *x, const uint32_t *w, int32_t pairs, int32_t acc[4]) {
  for (int32_t k = 0; k < pairs; ++k, w += 4) {
    for (int32_t j = 0; j < 4; ++j) acc[j] = mote_pair_mac(x[k], w[j], acc[j]);
  }
}
#endif

#endif

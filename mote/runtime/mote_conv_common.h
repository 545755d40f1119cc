/* Inline helpers shared by the convolution, depthwise and fully connected kernels: their geometry,
 * the outputs of register blocks, and register-blocked int8 dot products (the output stage itself
 * is in mote_output_stage.h).
 *
 * The dot products run over contiguous int8 rows. Their main loop covers a multiple of 16 terms
 * (n & ~15), so on hosts with SIMD the compiler can vectorize it without a scalar epilogue, keeping
 * each accumulator in a vector register; a plain loop takes the remaining n % 16 terms. On a scalar
 * core each loaded byte feeds several multiply-adds from registers. */
#ifndef MOTE_CONV_COMMON_H
#define MOTE_CONV_COMMON_H

#include <stdint.h>

#include "mote_output_stage.h"

/* Where a convolution's windows lie: output pixel (oy, ox) reads input tap
 * (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w, out_ch;          /* output [batches][out_h][out_w][out_ch] */
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w; /* all >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
} mote_conv_geometry;

/* Where the outputs of a register block of four pixels by four channels go, for the inner loops that
 * requantize their own accumulators (mote_dot_pairs_4x4_s8, mote_dot_ring_*): pixel i's output of
 * channel j at out + i * m + j, through the output-stage table rows from `stage` (the block's four
 * channels), with the layer's output offset and clamp; `rest` the layer's out-of-line output stage for a
 * channel without shortcuts (mote_output_of_any; NULL with one-multiply rows, which need none). The
 * assembly reads the fields at offsets 0, 4, 8, 12, 16, 20 and 24 (mote/targets/rv32/micro.py). */
typedef struct {
  int8_t *out;
  const int32_t *stage;
  int32_t m, offset, lo, hi;
  mote_output_rest_fn rest;
} mote_block_out;

/* The outputs of a full block (four pixels, four channels) from its accumulators acc[4i + j]. */
static inline void mote_block_out_4x4(const mote_block_out *how, const int32_t acc[16]) {
  for (int32_t j = 0; j < 4; ++j) {
    const mote_output_channel s = mote_output_channel_at(how->stage, j, how->offset, how->lo, how->hi);
    for (int32_t i = 0; i < 4; ++i) how->out[i * how->m + j] = mote_output_of_any(acc[4 * i + j], &s, how->rest);
  }
}

/* The outputs of a block that is not whole, computed into part[4i + j] (how->out = part with a pixel
 * step of 4): the `count` pixels and `channels` channels that exist, to out[i * m + j]. */
static inline void mote_block_copy(const int8_t part[16], int32_t count, int32_t channels, int8_t *out, int32_t m) {
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t j = 0; j < channels; ++j) out[i * m + j] = part[4 * i + j];
  }
}

/* The outputs of a block of `count` < 4 pixels by `channels` output channels, acc[4i + j] for pixel
 * i and channel oc + j, into out[i * m + j], each channel's output stage loaded once (`rest` as in
 * mote_block_out). */
static inline void mote_store_block_4x4(const int32_t *table, int32_t offset, int32_t lo, int32_t hi,
                                        mote_output_rest_fn rest, const int32_t acc[16], int32_t oc, int32_t count,
                                        int32_t channels, int8_t *out, int32_t m) {
  for (int32_t j = 0; j < channels; ++j, ++acc, ++out) {
    const mote_output_channel s = mote_output_channel_at(table, oc + j, offset, lo, hi);
    for (int32_t i = 0; i < count; ++i) out[i * m] = mote_output_of_any(acc[4 * i], &s, rest);
  }
}

/* The dot products below add into acc[]; the caller keeps acc in a local array, which the compiler
 * scalarizes after inlining. Every |x|, |w| <= 128, so each product is at most 2^14 in magnitude;
 * callers bound n so that their accumulators cannot overflow.
 * n16 must be n & ~15, computed by the caller once, outside its loops: the vectorizer proves the
 * main loop needs no epilogue from the known low bits of that value, which a copy hoisted out of
 * a loop by the optimizer would not carry. */

/* acc[2p + q] += sum_k x_p[k] * w_q[k]: four rows by two filters. */
static inline void mote_dot_4x2(const int8_t *x0, const int8_t *x1, const int8_t *x2, const int8_t *x3,
                                const int8_t *w0, const int8_t *w1, int32_t n, int32_t n16, int32_t acc[8]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  int32_t k = 0;
  for (; k < n16; ++k) {
    const int32_t u0 = x0[k], u1 = x1[k], u2 = x2[k], u3 = x3[k];
    const int32_t v0 = w0[k], v1 = w1[k];
    a0 += u0 * v0;
    a1 += u0 * v1;
    a2 += u1 * v0;
    a3 += u1 * v1;
    a4 += u2 * v0;
    a5 += u2 * v1;
    a6 += u3 * v0;
    a7 += u3 * v1;
  }
  for (; k < n; ++k) {
    const int32_t u0 = x0[k], u1 = x1[k], u2 = x2[k], u3 = x3[k];
    const int32_t v0 = w0[k], v1 = w1[k];
    a0 += u0 * v0;
    a1 += u0 * v1;
    a2 += u1 * v0;
    a3 += u1 * v1;
    a4 += u2 * v0;
    a5 += u2 * v1;
    a6 += u3 * v0;
    a7 += u3 * v1;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
  acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* acc[4p + q] += sum_k x_p[k] * w_q[k]: two rows by four filters. */
static inline void mote_dot_2x4(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                const int8_t *w2, const int8_t *w3, int32_t n, int32_t n16, int32_t acc[8]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
  int32_t k = 0;
  for (; k < n16; ++k) {
    const int32_t u0 = x0[k], u1 = x1[k];
    const int32_t v0 = w0[k], v1 = w1[k], v2 = w2[k], v3 = w3[k];
    a0 += u0 * v0;
    a1 += u0 * v1;
    a2 += u0 * v2;
    a3 += u0 * v3;
    a4 += u1 * v0;
    a5 += u1 * v1;
    a6 += u1 * v2;
    a7 += u1 * v3;
  }
  for (; k < n; ++k) {
    const int32_t u0 = x0[k], u1 = x1[k];
    const int32_t v0 = w0[k], v1 = w1[k], v2 = w2[k], v3 = w3[k];
    a0 += u0 * v0;
    a1 += u0 * v1;
    a2 += u0 * v2;
    a3 += u0 * v3;
    a4 += u1 * v0;
    a5 += u1 * v1;
    a6 += u1 * v2;
    a7 += u1 * v3;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
  acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* acc[q] += sum_k x[k] * w_q[k]: one row by four filters. */
static inline void mote_dot_1x4(const int8_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                const int8_t *w3, int32_t n, int32_t n16, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t k = 0;
  for (; k < n16; ++k) {
    const int32_t u = x[k];
    a0 += u * w0[k];
    a1 += u * w1[k];
    a2 += u * w2[k];
    a3 += u * w3[k];
  }
  for (; k < n; ++k) {
    const int32_t u = x[k];
    a0 += u * w0[k];
    a1 += u * w1[k];
    a2 += u * w2[k];
    a3 += u * w3[k];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* acc[q] += sum_k w_q[k] * (x[k] + offset): one row by four filters with the input offset applied
 * to each term, for windows that are cut by padding (whose bias cannot include the offset). The
 * offset input, |x + offset| <= 255, is computed as a 16-bit value, which lets a SIMD compiler use
 * 16-bit multiply-adds; each term is at most 255 * 128 in magnitude. */
static inline void mote_dot_offset_1x4(const int8_t *x, int16_t offset, const int8_t *w0, const int8_t *w1,
                                       const int8_t *w2, const int8_t *w3, int32_t n, int32_t n16,
                                       int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t k = 0;
  for (; k < n16; ++k) {
    const int32_t u = (int16_t)(x[k] + offset);
    a0 += u * w0[k];
    a1 += u * w1[k];
    a2 += u * w2[k];
    a3 += u * w3[k];
  }
  for (; k < n; ++k) {
    const int32_t u = x[k] + offset;
    a0 += u * w0[k];
    a1 += u * w1[k];
    a2 += u * w2[k];
    a3 += u * w3[k];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Two int8 products in one multiply. A window's taps 2k and 2k + 1 are packed as X = x0 * 2^16 + x1
 * and a filter's as W = w0 + w1 * 2^16 (int32 values). Modulo 2^32,
 *   X * W = (x0 w0 + x1 w1) * 2^16 + x1 w0   (the x0 w1 * 2^32 term vanishes).
 * With |x| <= 128 and |w| <= 127, |x0 w0 + x1 w1| <= 32512 < 2^15, so the high half does not wrap,
 * and |x1 w0| <= 16256, so the low half, lifted by 2^15 into [0, 2^16), drops out of the arithmetic
 * shift: (X * W + 2^15) >> 16 == x0 w0 + x1 w1 exactly. A multiply, an add, a shift and an add per
 * two products, and one load per two taps instead of two. */
static inline int32_t mote_pair_dot(int32_t x, int32_t w) {
  return (int32_t)((uint32_t)x * (uint32_t)w + 32768u) >> 16;
}

/* mote_pair_dot for two activations' pairs, x0 * w0 + x1 * w1 - 128: with X = x0 * 2^16 + x1 and
 * W = w0 + w1 * 2^16 for any int8 values, the sum lies in [-32512, 32768], lowered by 128 it fits 16 bits, and
 * the low half x1 * w0 lifted by 2^15 stays in [0, 2^16), so adding 2^15 - 128 * 2^16 before the shift gives it
 * exactly. */
static inline int32_t mote_matmul_pair_dot(int32_t x, int32_t w) {
  return (int32_t)((uint32_t)x * (uint32_t)w + 0xFF808000u) >> 16;
}

/* Four int8 products in two multiplies and one rounding: for two packed pairs as above,
 * X * W + X' * W' = (t + t') * 2^16 + (x1 w0 + x1' w0') modulo 2^32, and the low half lifted by 2^15
 * stays in [0, 2^16) (each term is at most 16256 in magnitude), so the shift gives t + t' exactly as
 * long as t + t' fits 16 bits: |x0 w0 + x1 w1 + x0' w0' + x1' w1'| < 2^15 for every int8 input,
 * which the compiler checks on the filter's weights (mote.ops.pair_groups) before it takes this. */
static inline int32_t mote_pair_dot2(int32_t x, int32_t w, int32_t x2, int32_t w2) {
  return (int32_t)((uint32_t)x * (uint32_t)w + (uint32_t)x2 * (uint32_t)w2 + 32768u) >> 16;
}

/* *acc += term, in source order. The empty asm statement claims to change the accumulator, so the
 * compiler can neither reassociate a run of such sums into temporaries nor move them apart: it keeps
 * each accumulator in one register. It emits no instruction. */
static inline void mote_accumulate(int32_t *acc, int32_t term) {
  *acc += term;
#if defined(__GNUC__)
  __asm__("" : "+r"(*acc));
#endif
}

/* acc[q] = bias[q] + sum_k x[4k] * w[4k + q] for one window by four filters over n tap pairs packed
 * and interleaved as above (the window one of the four of a block), n even: the pixels of a block
 * that is not full, without the work of the missing ones. */
static inline void mote_dot_1x4_pairs(const int32_t *x, const int32_t *w, int32_t n, const int32_t bias[4],
                                      int32_t acc[4]) {
  int32_t a[4] = {bias[0], bias[1], bias[2], bias[3]};
  for (const int32_t *end = x + 4 * n; x != end; x += 8, w += 8) {
    const int32_t u0 = x[0], u1 = x[4];
    for (int32_t q = 0; q < 4; ++q) mote_accumulate(&a[q], mote_pair_dot(u0, w[q]));
    for (int32_t q = 0; q < 4; ++q) mote_accumulate(&a[q], mote_pair_dot(u1, w[4 + q]));
  }
  acc[0] = a[0], acc[1] = a[1], acc[2] = a[2], acc[3] = a[3];
}

/* filter_offset * sum_d x[d], d < n: a fully connected layer's asymmetric-weights term, zero for
 * symmetric weights; |sum| <= n * 128. */
static inline int32_t mote_filter_offset_term(int32_t filter_offset, const int8_t *x, int32_t n) {
  if (filter_offset == 0) return 0;
  int32_t sum = 0;
  for (int32_t d = 0; d < n; ++d) sum += x[d];
  return sum * filter_offset;
}

/* sum_k x[k] * w[k]: the remainders. */
static inline int32_t mote_dot_1x1(const int8_t *x, const int8_t *w, int32_t n, int32_t n16) {
  int32_t a = 0;
  int32_t k = 0;
  for (; k < n16; ++k) a += (int32_t)x[k] * w[k];
  for (; k < n; ++k) a += (int32_t)x[k] * w[k];
  return a;
}

#endif

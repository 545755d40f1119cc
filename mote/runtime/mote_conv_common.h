/* Inline helpers shared by the convolution, depthwise and fully connected kernels: the output
 * stage (requantize, offset, clamp) and register-blocked int8 dot products.
 *
 * The dot products run over contiguous int8 rows. Their main loop covers a multiple of 16 terms
 * (n & ~15), so on hosts with SIMD the compiler can vectorize it without a scalar epilogue, keeping
 * each accumulator in a vector register; a plain loop takes the remaining n % 16 terms. On a scalar
 * core each loaded byte feeds several multiply-adds from registers. */
#ifndef MOTE_CONV_COMMON_H
#define MOTE_CONV_COMMON_H

#include <stdint.h>

/* mote_conv_scale: MultiplyByQuantizedMultiplier(acc, multiplier, shift) + offset, and
 * mote_conv_requantize: that clamped to [lo, hi] as int8, exactly for every int32 acc, given
 * left_mul = 2^max(shift, 0) and right_mul = 2^(31 - max(-shift, 0)). Each
 * rounding is one 32 x 32 -> 64-bit product whose high word is taken with a carry from bit 31 of the
 * low word, which a 32-bit core does in four instructions (mul, mulh[s]u, a shift and an add):
 *  - x = acc * 2^left modulo 2^32, as TFLite's int32 product wraps;
 *  - gemmlowp's doubling high multiply, (x * m + nudge) / 2^31 truncated with nudge 2^30 or 1 - 2^30
 *    by sign, equals v = floor((x * m + 2^30) / 2^31) (truncating a negative quotient is ceil(), and
 *    ceil((y + 1 - 2^30) / 2^31) == floor((y + 2^30) / 2^31)) = floor((x * 2m + 2^31) / 2^32), where
 *    2m < 2^32 as multipliers are in [0, 2^31): the saturating case cannot occur, and v > -2^31;
 *  - the rounding right shift (halves away from zero) is floor((v + 2^(right-1) - (v < 0)) / 2^right)
 *    for right > 0: with y = v - (v < 0), that is floor((y * 2^(32-right) + 2^31) / 2^32), and
 *    2^(32-right) = 2 right_mul. For right == 0 (right_mul = 2^31), y = v and the factor 2^32 - 1
 *    gives v + floor((2^31 - v) / 2^32) = v, as -2^31 < v <= 2^31;
 *  - the output offset is added modulo 2^32, as TFLite's int32 sum wraps. */
static inline int32_t mote_conv_scale(int32_t acc, uint32_t multiplier, uint32_t left_mul, uint32_t right_mul,
                                      uint32_t offset) {
  const uint32_t x = (uint32_t)acc * left_mul;
  const int64_t xm = (int64_t)(int32_t)x * (int64_t)(multiplier << 1);
  const int32_t v = (int32_t)((uint32_t)((uint64_t)xm >> 32) + ((uint32_t)xm >> 31));
  const int32_t y = (int32_t)((uint32_t)v - (uint32_t)(v < 0 && right_mul <= 0x40000000u));
  const uint32_t r2 = (right_mul << 1) - (right_mul >> 31);
  const int64_t yr = (int64_t)y * (int64_t)r2;
  return (int32_t)((uint32_t)((uint64_t)yr >> 32) + ((uint32_t)yr >> 31) + offset);
}

static inline int8_t mote_conv_requantize(int32_t acc, uint32_t multiplier, uint32_t left_mul, uint32_t right_mul,
                                          uint32_t offset, int32_t lo, int32_t hi) {
  const int32_t q = mote_conv_scale(acc, multiplier, left_mul, right_mul, offset);
  const int32_t below = q > hi ? hi : q; /* two independent selects: compilers emit fewer branches */
  return (int8_t)(below < lo ? lo : below);
}

/* Where a convolution's windows lie: output pixel (oy, ox) reads input tap
 * (oy * stride_h - pad_top + fy * dilation_h, ox * stride_w - pad_left + fx * dilation_w). */
typedef struct {
  int32_t batches, in_h, in_w, in_ch;    /* input [batches][in_h][in_w][in_ch] */
  int32_t out_h, out_w, out_ch;          /* output [batches][out_h][out_w][out_ch] */
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w, dilation_h, dilation_w; /* all >= 1 */
  int32_t pad_top, pad_left;             /* >= 0 */
} mote_conv_geometry;

/* A layer's output stage is a table computed at compile time (mote.ops.output_stage), one row of
 * MOTE_OUTPUT_STAGE_WORDS int32 words per channel: the Q31 multiplier, TFLite's shift, then the
 * shortcuts' min_below, fast_after, max_above, m2, k and shift. One row is one base address and
 * eight loads. */
enum { MOTE_OUTPUT_STAGE_WORDS = 8 };

/* One channel's output stage in registers, with its exact shortcuts (derived in mote/ops/output_stage.py):
 * an accumulator above fast_after (non-negative) gives act_max above max_above, otherwise
 * (v + k) >> shift, v the high word of acc * m2 + 2^31; one below min_below gives act_min; any other
 * takes mote_output_rest, whose operands are read from the channel's table row only there: kept in
 * registers, the compiler would prepare them for every channel. */
typedef struct {
  const int32_t *row;
  int32_t min_below, fast_after, max_above;
  uint32_t m2, k;
  int32_t shift;
  uint32_t offset;
  int32_t lo, hi;
} mote_output_channel;

static inline mote_output_channel mote_output_channel_at(const int32_t *table, int32_t c, int32_t offset, int32_t lo,
                                                         int32_t hi) {
  const int32_t *row = table + MOTE_OUTPUT_STAGE_WORDS * c;
  const mote_output_channel ch = {row, row[2], row[3], row[4], (uint32_t)row[5], (uint32_t)row[6], row[7],
                                  (uint32_t)offset, lo, hi};
  return ch;
}

/* The output of a negative accumulator not below min_below, for a channel whose shortcuts fit 32
 * bits (fast_after < INT32_MAX): (v - [v < 0] + k) >> shift, at most act_max. */
static inline int8_t mote_output_negative(int32_t acc, const mote_output_channel *s) {
  const uint64_t product = (uint64_t)((int64_t)acc * (int64_t)s->m2);
  const uint32_t v = (uint32_t)(product >> 32) + ((uint32_t)product >> 31);
  const int32_t q = (int32_t)(v - (v >> 31) + s->k) >> s->shift;
  return (int8_t)(q > s->hi ? s->hi : q);
}

/* The output of an accumulator not below min_below, for a wide channel (fast_after == INT32_MAX,
 * shift > 0): act_max above max_above, else the sum shifted by t = -(TFLite shift) - shift first,
 * (((v - [v < 0]) >> t) + k) >> shift. */
static inline int8_t mote_output_wide(int32_t acc, const mote_output_channel *s) {
  if (acc > s->max_above) return (int8_t)s->hi;
  const uint64_t product = (uint64_t)((int64_t)acc * (int64_t)s->m2);
  const uint32_t v = (uint32_t)(product >> 32) + ((uint32_t)product >> 31);
  const int32_t t = -s->row[1] - s->shift;
  return (int8_t)((int32_t)((uint32_t)((int32_t)(v - (v >> 31)) >> t) + s->k) >> s->shift);
}

/* The output of an accumulator at or below fast_after and not below min_below: mote_output_negative
 * or mote_output_wide for a channel with shortcuts, mote_conv_requantize (with TFLite's shift as its
 * two powers of two) for any other. */
static inline int8_t mote_output_rest(int32_t acc, const mote_output_channel *s) {
  if (s->fast_after != INT32_MAX) return mote_output_negative(acc, s);
  if (s->shift != 0) return mote_output_wide(acc, s);
  const int32_t shift = s->row[1];
  const uint32_t left_mul = 1u << (shift > 0 ? shift : 0), right_mul = 1u << (31 + (shift < 0 ? shift : 0));
  return mote_conv_requantize(acc, (uint32_t)s->row[0], left_mul, right_mul, s->offset, s->lo, s->hi);
}

/* Branch hints: the path a kernel takes for most values laid out straight, the others out of line. */
#if defined(__GNUC__)
#define MOTE_LIKELY(x) __builtin_expect(!!(x), 1)
#define MOTE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MOTE_LIKELY(x) (x)
#define MOTE_UNLIKELY(x) (x)
#endif

/* The output of an accumulator above fast_after (non-negative): act_max above max_above, else
 * (v + k) >> shift. */
static inline int8_t mote_output_positive(int32_t acc, const mote_output_channel *s) {
  if (MOTE_UNLIKELY(acc > s->max_above)) return (int8_t)s->hi;
  const uint64_t product = (uint64_t)(uint32_t)acc * s->m2;
  const uint32_t v = (uint32_t)(product >> 32) + ((uint32_t)product >> 31);
  return (int8_t)((int32_t)(v + s->k) >> s->shift);
}

/* mote_conv_requantize(acc, ...) for the channel, through its shortcuts. The test for a non-negative
 * accumulator comes first: most outputs that are not clamped take that path, laid out straight. */
static inline int8_t mote_output_of(int32_t acc, const mote_output_channel *s) {
  if (MOTE_LIKELY(acc > s->fast_after)) return mote_output_positive(acc, s);
  if (acc < s->min_below) return (int8_t)s->lo;
  return mote_output_rest(acc, s);
}

/* Where the outputs of a register block of four pixels by four channels go, for the inner loops that
 * requantize their own accumulators (mote_dot_pairs_4x4_s8, mote_dot_ring_*): pixel i's output of
 * channel j at out + i * m + j, through the output-stage table rows from `stage` (the block's four
 * channels), with the layer's output offset and clamp. The assembly reads the fields at offsets 0, 4,
 * 8, 12, 16 and 20 (mote/targets/rv32/micro.py). */
typedef struct {
  int8_t *out;
  const int32_t *stage;
  int32_t m, offset, lo, hi;
} mote_block_out;

/* mote_output_rest for a table row, as a function of its own: what the assembly inner loops call for
 * a channel without shortcuts. */
int8_t mote_output_rest_s8(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi);

/* The outputs of a full block (four pixels, four channels) from its accumulators acc[4i + j]. */
static inline void mote_block_out_4x4(const mote_block_out *how, const int32_t acc[16]) {
  for (int32_t j = 0; j < 4; ++j) {
    const mote_output_channel s = mote_output_channel_at(how->stage, j, how->offset, how->lo, how->hi);
    for (int32_t i = 0; i < 4; ++i) how->out[i * how->m + j] = mote_output_of(acc[4 * i + j], &s);
  }
}

/* The outputs of a block that is not whole, computed into part[4i + j] (how->out = part with a pixel
 * step of 4): the `count` pixels and `channels` channels that exist, to out[i * m + j]. */
static inline void mote_block_copy(const int8_t part[16], int32_t count, int32_t channels, int8_t *out, int32_t m) {
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t j = 0; j < channels; ++j) out[i * m + j] = part[4 * i + j];
  }
}

/* The outputs of a register block of four pixels by four output channels, acc[4i + j] for pixel
 * i < count and channel oc + j, j < channels, into out[i * m + j]: each channel's output stage is
 * loaded once, a whole column of four is written out (no loop per output). */
static inline void mote_store_block_4x4(const int32_t *table, int32_t offset, int32_t lo, int32_t hi,
                                        const int32_t acc[16], int32_t oc, int32_t count, int32_t channels,
                                        int8_t *out, int32_t m) {
  for (int32_t j = 0; j < channels; ++j, ++acc, ++out) {
    const mote_output_channel s = mote_output_channel_at(table, oc + j, offset, lo, hi);
    if (count == 4) {
      out[0] = mote_output_of(acc[0], &s), out[m] = mote_output_of(acc[4], &s);
      out[2 * m] = mote_output_of(acc[8], &s), out[3 * m] = mote_output_of(acc[12], &s);
      continue;
    }
    for (int32_t i = 0; i < count; ++i) out[i * m] = mote_output_of(acc[4 * i], &s);
  }
}

/* A layer's output stage: per output channel, the Q31 multiplier and TFLite's shift as the two powers
 * of two above (precomputed at compile time by mote.ops.conv2d.output_multipliers; 2^31 is stored
 * as INT32_MIN), then the output offset and the activation clamp. */
typedef struct {
  const int32_t *multiplier, *left_mul, *right_mul; /* [channels] */
  int32_t offset, act_min, act_max;
} mote_conv_output_stage;

/* The output of channel c for accumulator acc. */
static inline int8_t mote_conv_output(const mote_conv_output_stage *s, int32_t acc, int32_t c) {
  return mote_conv_requantize(acc, (uint32_t)s->multiplier[c], (uint32_t)s->left_mul[c],
                              (uint32_t)s->right_mul[c], (uint32_t)s->offset, s->act_min, s->act_max);
}

/* out[j] = the output of channel c + j for acc[j], j < 16: a fixed trip count over restrict-qualified
 * arrays, so that the compiler can unroll or vectorize it with no runtime aliasing checks. */
static inline void mote_conv_output16(const mote_conv_output_stage *s, const int32_t *restrict acc, int32_t c,
                                      int8_t *restrict out) {
  const int32_t *restrict multiplier = s->multiplier + c;
  const int32_t *restrict left_mul = s->left_mul + c;
  const int32_t *restrict right_mul = s->right_mul + c;
  const uint32_t offset = (uint32_t)s->offset;
  const int32_t lo = s->act_min, hi = s->act_max;
  for (int32_t j = 0; j < 16; ++j) {
    out[j] = mote_conv_requantize(acc[j], (uint32_t)multiplier[j], (uint32_t)left_mul[j],
                                  (uint32_t)right_mul[j], offset, lo, hi);
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
 * each accumulator in one register, which is what lets sixteen of them and a block's operands share
 * a 32-register core without spilling. It emits no instruction. */
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

/* The output stage of the kernels: an int32 accumulator requantized (TFLite's
 * MultiplyByQuantizedMultiplier), offset and clamped to int8. Two forms of a layer's stage: arrays of
 * multipliers and shifts as powers of two (mote_conv_output_stage, for the kernels whose compiler
 * vectorizes it), and one table row per channel with exact shortcuts (mote_output_channel, for scalar
 * cores and the elementwise kernels). */
#ifndef MOTE_OUTPUT_STAGE_H
#define MOTE_OUTPUT_STAGE_H

#include <stdint.h>

/* Branch hints: the path a kernel takes for most values laid out straight, the others out of line. */
#if defined(__GNUC__)
#define MOTE_LIKELY(x) __builtin_expect(!!(x), 1)
#define MOTE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MOTE_LIKELY(x) (x)
#define MOTE_UNLIKELY(x) (x)
#endif

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

/* A layer's output stage: per output channel, the Q31 multiplier and TFLite's shift as the two powers
 * of two above (precomputed at compile time by mote.ops.output_stage.output_multipliers; 2^31 is stored
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

/* An out-of-line output stage for one accumulator and its channel's table row: mote_output_rest_s8 or
 * mote_output_rest_any_s8, as a layer's params name it. */
typedef int8_t (*mote_output_rest_fn)(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi);

static inline mote_output_channel mote_output_channel_at(const int32_t *table, int32_t c, int32_t offset, int32_t lo,
                                                         int32_t hi) {
  const int32_t *row = table + MOTE_OUTPUT_STAGE_WORDS * c;
  const mote_output_channel ch = {row, row[2], row[3], row[4], (uint32_t)row[5], (uint32_t)row[6], row[7],
                                  (uint32_t)offset, lo, hi};
  return ch;
}

/* v - [v < 0] for an accumulator of any sign, v = the high word of acc * m2 + 2^31 (TFLite's doubling
 * high multiply), as the negative and wide paths take it. */
static inline uint32_t mote_output_v_down(int32_t acc, uint32_t m2) {
  const uint64_t product = (uint64_t)((int64_t)acc * (int64_t)m2);
  const uint32_t v = (uint32_t)(product >> 32) + ((uint32_t)product >> 31);
  return v - (v >> 31);
}

/* The output of a negative accumulator not below min_below, for a channel whose shortcuts fit 32
 * bits (fast_after < INT32_MAX): (v - [v < 0] + k) >> shift, at most act_max. */
static inline int8_t mote_output_negative(int32_t acc, const mote_output_channel *s) {
  const int32_t q = (int32_t)(mote_output_v_down(acc, s->m2) + s->k) >> s->shift;
  return (int8_t)(q > s->hi ? s->hi : q);
}

/* The output of an accumulator not below min_below, for a wide channel (fast_after == INT32_MAX,
 * shift > 0): act_max above max_above, else the sum shifted by t = -(TFLite shift) - shift first,
 * (((v - [v < 0]) >> t) + k) >> shift. */
static inline int8_t mote_output_wide(int32_t acc, const mote_output_channel *s) {
  if (acc > s->max_above) return (int8_t)s->hi;
  const int32_t t = -s->row[1] - s->shift;
  return (int8_t)((int32_t)((uint32_t)((int32_t)mote_output_v_down(acc, s->m2) >> t) + s->k) >> s->shift);
}

/* A RequantShift row (the integer dialect's requantization, mote.ops.requant_stage) holds
 * MOTE_OUTPUT_REQUANT_SHIFT + k in place of TFLite's shift (which is in [-31, 31]): row[0] the
 * multiplier mul, row[5] the addend add, row[6] the divisor d (below 2^32, its bits); k = log2(2 d)
 * when d is a power of two, else 0. Its channel has no fast path (fast_after INT32_MAX, shift 0): act_min
 * below min_below, act_max above max_above, else floor((2 (acc * mul + add) + d) / (2 d)) + offset
 * clamped, in 64 bits (the compiler checks that the sum fits). */
enum { MOTE_OUTPUT_REQUANT_SHIFT = 64, MOTE_OUTPUT_REQUANT_SHIFT_32 = 128 };

/* A RequantShift row in 32 bits, kind MOTE_OUTPUT_REQUANT_SHIFT_32 (+ 1 to divide): for every accumulator
 * from min_below to max_above, n = acc * mul + K is in [0, 2^32) (the compiler checks its two ends),
 * with K = add + floor(d / 2) + (offset + 128) d in row[5]; the output, strictly inside the clamps, is
 * n >> row[6] - 128 (d = 2^row[6]) or n / row[6] - 128 (row[6] = d). The sum wraps modulo 2^32 as it
 * goes: only its value counts. The assembly inner loops of a project with such rows compute it in line, the C
 * out of line (mote_output_requant_shift_s8.h, with the 64-bit kind: one small function rather than code in line
 * in every kernel, since only the integer dialect's fused layers have such rows). */

/* The output of an accumulator at or below fast_after and not below min_below: mote_output_negative
 * or mote_output_wide for a channel with shortcuts, mote_conv_requantize (with TFLite's shift as its
 * two powers of two) for any other. (Not RequantShift rows: mote_output_of_any. A test for them here
 * costs the plane kernels' loops, which inline this, 0.8 rv32 instructions per MAC.) */
static inline int8_t mote_output_rest(int32_t acc, const mote_output_channel *s) {
  if (s->fast_after != INT32_MAX) return mote_output_negative(acc, s);
  if (s->shift != 0) return mote_output_wide(acc, s);
  const int32_t shift = s->row[1];
  const uint32_t left_mul = 1u << (shift > 0 ? shift : 0), right_mul = 1u << (31 + (shift < 0 ? shift : 0));
  return mote_conv_requantize(acc, (uint32_t)s->row[0], left_mul, right_mul, s->offset, s->lo, s->hi);
}

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

/* mote_output_of for a table that may hold RequantShift rows: the blocked kernels', which the integer
 * dialect's fused layers run. Such a row goes to `rest`, the layer's out-of-line output stage: a layer with
 * RequantShift rows names mote_output_rest_any_s8 there, any other mote_output_rest_s8, so that only a
 * project with such layers carries the RequantShift code (mote_output_requant_shift_s8). */
static inline int8_t mote_output_of_any(int32_t acc, const mote_output_channel *s, mote_output_rest_fn rest) {
  if (MOTE_LIKELY(acc > s->fast_after)) return mote_output_positive(acc, s);
  if (acc < s->min_below) return (int8_t)s->lo;
  if (s->row[1] >= MOTE_OUTPUT_REQUANT_SHIFT) return rest(acc, s->row, (int32_t)s->offset, s->lo, s->hi);
  return mote_output_rest(acc, s);
}

/* mote_output_rest for a table row of TFLite's requantization, as a function of its own: what the assembly
 * inner loops call for a channel without shortcuts, and the `rest` of a layer whose table has no RequantShift
 * rows. */
int8_t mote_output_rest_s8(int32_t acc, const int32_t *row, int32_t offset, int32_t lo, int32_t hi);

#endif

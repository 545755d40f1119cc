/* The blocked fully connected kernel's row loops, written once for each element type: the file that includes
 * this header defines MOTE_BLOCKED_X (activations), MOTE_BLOCKED_W (weights) and MOTE_BLOCKED_ACC (sums)
 * first, then keeps only its own output stage (mote_fully_connected_blocked_s16.c,
 * mote_fully_connected_blocked_f32.c). */
#ifndef MOTE_FULLY_CONNECTED_BLOCKED_BODY_H
#define MOTE_FULLY_CONNECTED_BLOCKED_BODY_H

#include "mote_types.h"

/* acc[j] = sum over d of x[d] * w[d][j] for eight rows, two terms a step. */
static void rows8(const MOTE_BLOCKED_X *x, const MOTE_BLOCKED_W *w, int32_t depth, MOTE_BLOCKED_ACC acc[8]) {
  MOTE_BLOCKED_ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  int32_t d = 0;
  for (; d + 2 <= depth; d += 2, w += 16) {
    MOTE_BLOCKED_ACC u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    a4 += u * w[4], a5 += u * w[5], a6 += u * w[6], a7 += u * w[7];
    u = x[d + 1];
    a0 += u * w[8], a1 += u * w[9], a2 += u * w[10], a3 += u * w[11];
    a4 += u * w[12], a5 += u * w[13], a6 += u * w[14], a7 += u * w[15];
  }
  if (d < depth) {
    const MOTE_BLOCKED_ACC u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    a4 += u * w[4], a5 += u * w[5], a6 += u * w[6], a7 += u * w[7];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* The same for four rows. */
static void rows4(const MOTE_BLOCKED_X *x, const MOTE_BLOCKED_W *w, int32_t depth, MOTE_BLOCKED_ACC acc[8]) {
  MOTE_BLOCKED_ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int32_t d = 0;
  for (; d + 2 <= depth; d += 2, w += 8) {
    MOTE_BLOCKED_ACC u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
    u = x[d + 1];
    a0 += u * w[4], a1 += u * w[5], a2 += u * w[6], a3 += u * w[7];
  }
  if (d < depth) {
    const MOTE_BLOCKED_ACC u = x[d];
    a0 += u * w[0], a1 += u * w[1], a2 += u * w[2], a3 += u * w[3];
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

#endif

#ifndef MOTE_FMODF_H
#define MOTE_FMODF_H

/* fmodf without libm: x - n * y for the integer n that truncates x / y, which is exact (every such
 * remainder is a float32), with the sign of x; NaN for y = 0, an infinite x or a NaN; x for an infinite y. */
float mote_fmodf(float x, float y);

#endif

#ifndef MOTE_EXPM1F_H
#define MOTE_EXPM1F_H

/* e^x - 1 for float32 without libm, evaluated in double and rounded once (within 1 ULP; the tests
 * measure it). mote.ops.float_math.expm1f is the same computation in numpy, bit for bit. */
float mote_expm1f(float x);

#endif

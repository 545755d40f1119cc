#ifndef MOTE_EXPF_H
#define MOTE_EXPF_H

/* e^x for float32 without libm, evaluated in double and rounded once: within 1 ULP of the exact
 * value (the tests measure it against the C library). mote.ops.float_math.expf is the same
 * computation in numpy, bit for bit. */
float mote_expf(float x);

#endif

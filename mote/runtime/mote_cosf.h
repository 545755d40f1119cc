#ifndef MOTE_COSF_H
#define MOTE_COSF_H

/* cos(x) for float32 without libm, evaluated in double and rounded once: within 1 ULP for |x| < 2^22
 * (the tests measure it); beyond, the argument reduction loses accuracy. mote.ops.float_math.cosf is the
 * same computation in numpy, bit for bit. */
float mote_cosf(float x);

#endif

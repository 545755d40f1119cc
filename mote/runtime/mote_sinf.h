#ifndef MOTE_SINF_H
#define MOTE_SINF_H

/* sin(x) for float32 without libm, evaluated in double and rounded once: within 1 ULP for |x| < 2^22
 * (the tests measure it); beyond, the argument reduction loses accuracy. mote.ops.float_math.sinf is the
 * same computation in numpy, bit for bit. */
float mote_sinf(float x);

#endif

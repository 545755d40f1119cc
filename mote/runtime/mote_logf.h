#ifndef MOTE_LOGF_H
#define MOTE_LOGF_H

/* The natural logarithm of a float32 without libm, evaluated in double and rounded once (within 1 ULP;
 * the tests measure it). mote.ops.float_math.logf is the same computation in numpy, bit for bit. */
float mote_logf(float x);

#endif

#ifndef MOTE_TANHF_H
#define MOTE_TANHF_H

/* tanh(x) for float32 without libm, evaluated in double and rounded once (within 1 ULP; the tests
 * measure it). mote.ops.float_math.tanhf is the same computation in numpy, bit for bit. */
float mote_tanhf(float x);

#endif

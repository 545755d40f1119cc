/* The part of <math.h> that mote's kernels use, for freestanding builds (no libc): the special values
 * only. mote links no libm; its exp, log, sin, cos, tanh and sqrt are its own (mote_expf.c, ...). */
#ifndef MOTE_RV32_MATH_H
#define MOTE_RV32_MATH_H

#define HUGE_VALF (__builtin_huge_valf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))

#endif

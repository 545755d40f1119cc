/* The part of <math.h> that mote's generated code and kernels use, for freestanding builds (no libc,
 * no libm): the macros of non-finite floats, as compiler builtins. No function is declared: the model
 * code calls none. */
#ifndef MOTE_RV32_MATH_H
#define MOTE_RV32_MATH_H

#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")

#endif

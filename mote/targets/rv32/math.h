/* The part of <math.h> that mote's kernels use, for freestanding builds (no libc): the HUGE_VALF,
 * INFINITY and NAN macros, from the compiler's builtins. mote's float kernels call no libm function. */
#ifndef MOTE_RV32_MATH_H
#define MOTE_RV32_MATH_H

#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")

#endif

/* Reset code for mote's rv32 virtual platform (rv32imc, ilp32, bare metal).
 *
 * Sets the stack pointer to the top of RAM, copies .data's initial values from flash to RAM, zeroes
 * .bss, calls main and writes main's return value to the exit register, which ends the run.
 * The symbols come from link.ld; the register address from the generated mote_vp.h.
 * .noinit is left alone: the simulator may fill it before reset. */
#include "mote_vp.h"

  .section .text.start, "ax", @progbits
  .globl _start
  .type _start, @function
_start:
  la sp, __stack_top
#ifdef __riscv_flen
  /* rv32imfc: mstatus.FS from off to initial, so that the F extension's instructions do not trap. */
  li t0, 0x2000
  csrs mstatus, t0
#endif
#ifdef MOTE_VP_CORES
  /* A cluster: every core starts here. Core k's stack ends MOTE_VP_CORE_STACK_BYTES * k below the top;
   * core 0 goes on to initialize memory and run main, the others wait for work (mote_cluster.c). */
  li t0, MOTE_VP_CORE_ID_ADDR
  lw t1, 0(t0)
  li t2, MOTE_VP_CORE_STACK_BYTES
  mul t2, t2, t1
  sub sp, sp, t2
  beqz t1, 0f
  call mote_worker
6:
  j 6b /* not reached: mote_worker does not return */
0:
#endif

  /* .data: word by word (link.ld aligns its start and end, in flash and in RAM, to 4 bytes). */
  la a0, __data_start
  la a1, __data_end
  la a2, __data_load
1:
  bgeu a0, a1, 2f
  lw t0, 0(a2)
  sw t0, 0(a0)
  addi a0, a0, 4
  addi a2, a2, 4
  j 1b
2:
  /* .bss: word by word. */
  la a0, __bss_start
  la a1, __bss_end
3:
  bgeu a0, a1, 4f
  sw zero, 0(a0)
  addi a0, a0, 4
  j 3b
4:
  call main
  li t0, MOTE_VP_EXIT_ADDR
  sw a0, 0(t0)
5:
  j 5b /* not reached: the simulator stops at the exit store */
  .size _start, . - _start

/* Reset code and vector table for mote's Cortex-M virtual platform (Thumb, bare metal; Armv6-M
 * instructions only, so one file serves every core).
 *
 * The vector table (at the start of flash, where VTOR points) holds the initial stack pointer and the
 * reset handler; every exception goes to a handler that ends the run with status 0xFF (on the virtual
 * platform the simulator reports the fault itself, before any handler runs). The reset handler enables
 * the FPU where there is one, copies .data's initial values from flash to RAM, zeroes .bss, calls main
 * and writes main's return value to the exit register, which ends the run. The symbols come from
 * link.ld; the register address from the generated mote_vp.h. .noinit is left alone. */
#include "mote_vp.h"

  .syntax unified
  .thumb

  .section .vectors, "a", %progbits
  .align 2
  .globl __vectors
__vectors:
  .word __stack_top
  .word Reset_Handler
  .rept 14                /* NMI, HardFault, MemManage, BusFault, UsageFault, SecureFault, 4 reserved, */
  .word Default_Handler   /* SVCall, DebugMonitor, reserved, PendSV, SysTick */
  .endr
  .size __vectors, . - __vectors

  .section .text.start, "ax", %progbits
  .align 1
  .globl Reset_Handler
  .globl _start           /* the entry point's usual name, which zig's linker takes as the ELF entry */
  .type Reset_Handler, %function
  .type _start, %function
  .thumb_func
Reset_Handler:
_start:
  ldr r0, =__stack_top
  mov sp, r0
#if defined(__ARM_FP)
  /* CPACR: full access to coprocessors 10 and 11, the FPU. */
  ldr r0, =0xE000ED88
  ldr r1, [r0]
  ldr r2, =0x00F00000
  orrs r1, r2
  str r1, [r0]
  dsb
  isb
#endif
  /* .data: word by word (link.ld aligns its start and end, in flash and in RAM, to 4 bytes). */
  ldr r0, =__data_start
  ldr r1, =__data_end
  ldr r2, =__data_load
1:
  cmp r0, r1
  bhs 2f
  ldr r3, [r2]
  str r3, [r0]
  adds r0, r0, #4
  adds r2, r2, #4
  b 1b
2:
  /* .bss: word by word. */
  ldr r0, =__bss_start
  ldr r1, =__bss_end
  movs r3, #0
3:
  cmp r0, r1
  bhs 4f
  str r3, [r0]
  adds r0, r0, #4
  b 3b
4:
  bl main
  ldr r1, =MOTE_VP_EXIT_ADDR
  str r0, [r1]
5:
  b 5b /* not reached: the simulator stops at the exit store */
  .size Reset_Handler, . - Reset_Handler

  .section .text.Default_Handler, "ax", %progbits
  .align 1
  .type Default_Handler, %function
  .thumb_func
Default_Handler:
  movs r0, #255
  ldr r1, =MOTE_VP_EXIT_ADDR
  str r0, [r1]
6:
  b 6b
  .size Default_Handler, . - Default_Handler
  .ltorg

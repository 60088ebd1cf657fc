/* The bare-metal board support for emulated Cortex-M runs (QEMU mps2-an386,
 * Cortex-M4F, and mps2-an500, Cortex-M7): semihosting output and exit, and a
 * retired-instruction counter. No libc: everything here is freestanding.
 * Facts: ../shared/notes/TOOLCHAIN.md. */
#ifndef TINYFIT_BOARD_H_
#define TINYFIT_BOARD_H_

#include <stdint.h>

/* Writes a NUL-terminated string to the host's stdout (semihosting SYS_WRITE0). */
void board_write(const char* text);

/* Writes `bytes` bytes as lowercase hex, no separators, then a newline. */
void board_write_hex(const void* data, uint32_t bytes);

/* Writes an unsigned decimal number, then a newline. */
void board_write_u64(uint64_t value);

/* Ends the emulation; QEMU exits with `status` (semihosting SYS_EXIT_EXTENDED). */
void board_exit(int status) __attribute__((noreturn));

/* SysTick-based counter: under `qemu -icount shift=0` every retired
 * instruction advances virtual time by 1 ns and SysTick runs at 25 MHz, so one
 * tick is 40 instructions and two runs give the same count.
 * board_counter_start() resets it; board_counter_read() returns the ticks
 * since (tests/mcu/counter_calibration.c checks the ratio on both boards). */
#define BOARD_INSTRUCTIONS_PER_TICK 40u
void board_counter_start(void);
uint64_t board_counter_read(void);

/* The stack's deepest use so far in bytes: the startup code paints the stack
 * with a pattern; this scans for the first overwritten word. */
uint32_t board_stack_high_water_bytes(void);

/* The program's entry point, called by the reset handler. Its return value is
 * the emulator's exit status. */
int main(void);

#endif /* TINYFIT_BOARD_H_ */

/* board.h on the host, so that a test program built for QEMU's boards also
 * builds with the host compiler and prints the same lines: output through
 * stdio, no instruction counter (the host counts with callgrind instead) and
 * no stack measurement (both read 0). The emitted model never sees stdio;
 * only this board file does. */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"

void board_write(const char* text) { fputs(text, stdout); }

void board_write_hex(const void* data, uint32_t bytes) {
  const uint8_t* p = (const uint8_t*)data;
  uint32_t i;
  for (i = 0; i < bytes; ++i) printf("%02x", (unsigned)p[i]);
  putchar('\n');
}

void board_write_u64(uint64_t value) { printf("%llu\n", (unsigned long long)value); }

void board_exit(int status) {
  fflush(stdout);
  exit(status);
}

void board_counter_start(void) {}

uint64_t board_counter_read(void) { return 0; }

uint32_t board_stack_high_water_bytes(void) { return 0; }

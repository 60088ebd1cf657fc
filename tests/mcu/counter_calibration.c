/* Checks the instrument before anyone trusts its numbers: a loop of exactly
 * 2,000,000 retired instructions (1,000,000 x {subs, bne}) must read
 * 2,000,000 / BOARD_INSTRUCTIONS_PER_TICK = 50,000 ticks, within one tick of
 * timer granularity at each end. Deterministic under -icount shift=0. */
#include "board.h"

int main(void) {
  uint32_t n = 1000000;
  uint64_t ticks;
  board_counter_start();
  __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n));
  ticks = board_counter_read();
  board_write_u64(ticks * BOARD_INSTRUCTIONS_PER_TICK);
  return ticks >= 49999u && ticks <= 50001u ? 0 : 1;
}

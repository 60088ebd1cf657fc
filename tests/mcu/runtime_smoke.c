/* The smallest end-to-end check of the microcontroller path: a runtime
 * kernel (tf_x8_copy) on views of one static arena, built freestanding for the
 * board, run under QEMU. Prints the output bytes in hex, the instruction count
 * and the stack high-water mark; exits 0 when the bytes are as expected. */
#include "board.h"
#include "tinyfit/data_movement.h"

/* 2x3 rows of 4 channels, and a 2-channel slice of it. */
static uint8_t arena[24 + 12] __attribute__((aligned(4)));

int main(void) {
  tf_view whole, slice;
  uint32_t i;
  uint64_t ticks;
  for (i = 0; i < 24; ++i) arena[i] = (uint8_t)i;
  whole.data = arena;
  whole.shape[0] = 1; whole.shape[1] = 2; whole.shape[2] = 3; whole.shape[3] = 2;
  whole.strides[0] = 24; whole.strides[1] = 12; whole.strides[2] = 4; whole.strides[3] = 1;
  whole.data = arena + 1; /* channels 1 and 2 of each pixel */
  slice.data = arena + 24;
  slice.shape[0] = 1; slice.shape[1] = 2; slice.shape[2] = 3; slice.shape[3] = 2;
  slice.strides[0] = 12; slice.strides[1] = 6; slice.strides[2] = 2; slice.strides[3] = 1;
  board_counter_start();
  tf_x8_copy(&whole, &slice, 1);
  ticks = board_counter_read();
  board_write_hex(arena + 24, 12);
  board_write_u64(ticks);
  board_write_u64(board_stack_high_water_bytes());
  for (i = 0; i < 12; ++i) {
    /* pixel p = i / 2, channel 1 + i % 2: byte 4p + 1 + i % 2 */
    if (arena[24 + i] != (uint8_t)(4 * (i / 2) + 1 + i % 2)) return 1;
  }
  return 0;
}

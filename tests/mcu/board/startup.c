/* Reset handler, vector table and board services for QEMU's mps2 boards.
 * newlib ships no Cortex-M startup (TOOLCHAIN.md), so this is ours: copy
 * .data, zero .bss, paint the stack, enable the FPU, run main, exit with its
 * status through semihosting. Faults exit with status 99 so a crash never
 * spins until the test's timeout. */
#include "board.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];

#define STACK_PAINT 0xC0FFEE11u

void Reset_Handler(void);
void Fault_Handler(void);
void SysTick_Handler(void);

/* Semihosting call: operation in r0, argument in r1, result in r0. */
static uint32_t semihost(uint32_t operation, const void* argument) {
  register uint32_t r0 __asm__("r0") = operation;
  register const void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void board_write(const char* text) { (void)semihost(0x04u, text); }

void board_write_hex(const void* data, uint32_t bytes) {
  static const char kDigits[] = "0123456789abcdef";
  char line[65];
  const uint8_t* p = (const uint8_t*)data;
  uint32_t i = 0;
  while (i < bytes) {
    uint32_t n = 0;
    for (; n < 64 && i < bytes; n += 2, ++i) {
      line[n] = kDigits[p[i] >> 4];
      line[n + 1] = kDigits[p[i] & 15u];
    }
    line[n] = '\0';
    board_write(line);
  }
  board_write("\n");
}

void board_write_u64(uint64_t value) {
  char text[24];
  int n = 22;
  text[23] = '\0';
  text[22] = '\n';
  do {
    text[--n] = (char)('0' + (int)(value % 10u));
    value /= 10u;
  } while (value != 0 && n > 0);
  board_write(&text[n]);
}

void board_exit(int status) {
  /* SYS_EXIT_EXTENDED: {ADP_Stopped_ApplicationExit, status}. */
  uint32_t block[2];
  block[0] = 0x20026u;
  block[1] = (uint32_t)status;
  (void)semihost(0x20u, block);
  for (;;) {
  }
}

/* SysTick: 24-bit down-counter; the interrupt counts wraps. */
#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
static volatile uint32_t systick_wraps;

void SysTick_Handler(void) { ++systick_wraps; }

void board_counter_start(void) {
  SYST_CSR = 0;
  SYST_RVR = 0x00FFFFFFu;
  SYST_CVR = 0;
  systick_wraps = 0;
  SYST_CSR = 7u; /* processor clock, interrupt, enable */
}

uint64_t board_counter_read(void) {
  uint32_t wraps, value;
  do {
    wraps = systick_wraps;
    value = SYST_CVR;
  } while (wraps != systick_wraps);
  return (uint64_t)wraps * 0x01000000u + (0x00FFFFFFu - value);
}

uint32_t board_stack_high_water_bytes(void) {
  const uint32_t* p = __stack_limit;
  while (p < __stack_top && *p == STACK_PAINT) ++p;
  return (uint32_t)((const uint8_t*)__stack_top - (const uint8_t*)p);
}

void Fault_Handler(void) {
  board_write("fault\n");
  board_exit(99);
}

void Reset_Handler(void) {
  uint32_t* dst;
  const uint32_t* src = __data_load;
  for (dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (dst = __bss_start; dst < __bss_end;) *dst++ = 0;
  /* Paint the stack below the current frame (the reset handler's own few
   * words sit at the top). */
  {
    uint32_t* sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (dst = __stack_limit; dst < sp - 16; ++dst) *dst = STACK_PAINT;
  }
#if defined(__ARM_FP)
  /* CPACR: full access to CP10 and CP11 (the FPU). */
  (*(volatile uint32_t*)0xE000ED88u) |= (0xFu << 20);
  __asm__ volatile("dsb\n isb");
#endif
  board_exit(main());
}

/* Word-sized memory helpers GCC may call for struct copies; no libc. */
void* memcpy(void* dst, const void* src, unsigned int n);
void* memset(void* dst, int value, unsigned int n);
void* memcpy(void* dst, const void* src, unsigned int n) {
  uint8_t* d = (uint8_t*)dst;
  const uint8_t* s = (const uint8_t*)src;
  while (n--) *d++ = *s++;
  return dst;
}
void* memset(void* dst, int value, unsigned int n) {
  uint8_t* d = (uint8_t*)dst;
  while (n--) *d++ = (uint8_t)value;
  return dst;
}

typedef void (*Vector)(void);
__attribute__((section(".vectors"), used)) const Vector kVectors[16] = {
    (Vector)(uintptr_t)__stack_top, Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, 0, 0, 0, 0, Fault_Handler, Fault_Handler, 0, Fault_Handler,
    SysTick_Handler,
};

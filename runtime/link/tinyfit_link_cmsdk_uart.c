/* tinyfit_link.h over the MPS2 boards' CMSDK APB UARTs
 * (tinyfit_link_cmsdk_uart.h): one byte at a time, polling the UART's state
 * register. The UART has a one-byte buffer each way and no flow control on
 * the wire; in QEMU the socket behind it holds back what the receiver has not
 * taken yet, so nothing is lost. A real board needs the receiver to keep up
 * (a receive posted before the peer's send, as the plan orders them, or an
 * interrupt-driven buffer). */
#include "tinyfit_link_cmsdk_uart.h"

/* Registers (Cortex-M System Design Kit TRM, APB UART). */
typedef struct {
  volatile uint32_t data;
  volatile uint32_t state;  /* bit 0: TX buffer full, bit 1: RX buffer full */
  volatile uint32_t ctrl;   /* bit 0: TX enable, bit 1: RX enable */
  volatile uint32_t intstatus;
  volatile uint32_t bauddiv;
} cmsdk_uart;

#define UART_STATE_TX_FULL 1u
#define UART_STATE_RX_FULL 2u
#define UART_CTRL_TX_RX_ENABLE 3u
#define UART_COUNT 5

/* MPS2 AN385/AN386/AN500 UART0..UART4. */
static const uint32_t kUartBase[UART_COUNT] = {0x40004000u, 0x40005000u, 0x40006000u, 0x40007000u, 0x40009000u};

static int this_device = -1;
static int device_count;
static uint32_t bytes_sent, bytes_received;

static cmsdk_uart* uart_of_peer(int peer) {
  if (peer < 0 || peer >= device_count || peer == this_device) return (cmsdk_uart*)0;
  return (cmsdk_uart*)(uintptr_t)kUartBase[peer < this_device ? peer : peer - 1];
}

int tinyfit_link_uart_open(int device, int devices, uint32_t baud_divisor) {
  int peer;
  if (devices < 1 || devices - 1 > UART_COUNT || device < 0 || device >= devices) return 1;
  this_device = device;
  device_count = devices;
  bytes_sent = bytes_received = 0;
  for (peer = 0; peer < devices; ++peer) {
    cmsdk_uart* uart = uart_of_peer(peer);
    if (uart == (cmsdk_uart*)0) continue;
    uart->bauddiv = baud_divisor < 16u ? 16u : baud_divisor;
    uart->ctrl = UART_CTRL_TX_RX_ENABLE;
  }
  return 0;
}

uint32_t tinyfit_link_uart_bytes_sent(void) { return bytes_sent; }
uint32_t tinyfit_link_uart_bytes_received(void) { return bytes_received; }

int tinyfit_link_send(int peer, const void* data, uint32_t bytes) {
  cmsdk_uart* uart = uart_of_peer(peer);
  const uint8_t* p = (const uint8_t*)data;
  uint32_t i;
  if (uart == (cmsdk_uart*)0) return 1;
  for (i = 0; i < bytes; ++i) {
    while (uart->state & UART_STATE_TX_FULL) {
    }
    uart->data = p[i];
  }
  bytes_sent += bytes;
  return 0;
}

int tinyfit_link_recv(int peer, void* data, uint32_t bytes) {
  cmsdk_uart* uart = uart_of_peer(peer);
  uint8_t* p = (uint8_t*)data;
  uint32_t i;
  if (uart == (cmsdk_uart*)0) return 1;
  for (i = 0; i < bytes; ++i) {
    while (!(uart->state & UART_STATE_RX_FULL)) {
    }
    p[i] = (uint8_t)uart->data;
  }
  bytes_received += bytes;
  return 0;
}

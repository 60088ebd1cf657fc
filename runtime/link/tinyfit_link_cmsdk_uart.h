/* tinyfit_link.h over the CMSDK APB UARTs of Arm's MPS2 boards (AN385,
 * AN386, AN500; QEMU's mps2-an386 emulates five of them). One UART per peer:
 * device d reaches peer p through UART p when p < d and UART p - 1 when
 * p > d, so up to six devices form a full mesh. In QEMU each UART i is the
 * i-th -serial option; connecting two instances' UARTs through a loopback
 * socket links the two devices:
 *   device 0: -serial tcp:127.0.0.1:PORT,server=on,wait=on
 *   device 1: -serial tcp:127.0.0.1:PORT
 * C99, freestanding: polled, no interrupts, no allocation. */
#ifndef TINYFIT_LINK_CMSDK_UART_H_
#define TINYFIT_LINK_CMSDK_UART_H_

#include <stdint.h>

#include "tinyfit_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The UARTs that reach the other devices: enables their transmitter and
 * receiver. `baud_divisor` = peripheral clock / baud rate, at least 16 (on
 * the 25 MHz MPS2 boards 25 gives 1 Mbit/s; QEMU's sockets ignore it).
 * Returns 0, or 1 when device/devices do not fit the five UARTs. */
int tinyfit_link_uart_open(int device, int devices, uint32_t baud_divisor);

/* Bytes this device sent and received through the link since open. */
uint32_t tinyfit_link_uart_bytes_sent(void);
uint32_t tinyfit_link_uart_bytes_received(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_LINK_CMSDK_UART_H_ */

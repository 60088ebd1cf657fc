/* The link between the devices of a multi-device model (issue 14 §5).
 *
 * `tinyfit compile MODEL --devices N --emit c` writes one folder per device;
 * each device's model.c moves the slices its plan exchanges with these two
 * calls, and the firmware implements them over whatever connects the boards
 * (UART, SPI, a message-passing library on a host). tinyfit ships two
 * implementations: tinyfit_link_mpi.c (each device an operating-system
 * process, Open MPI) and tinyfit_link_cmsdk_uart.c (the CMSDK UARTs of the
 * Arm MPS2 boards, as QEMU's mps2-an386 emulates them).
 *
 * Contract:
 *  - devices are numbered 0 .. N-1 as the compiler numbered them; `peer` is
 *    never the calling device itself;
 *  - between two devices each direction is a reliable, ordered byte stream:
 *    the bytes of the sends to a peer arrive in order, and a receive may take
 *    the bytes of part of a send or of several (the generated code sends and
 *    receives a strided slice run by run, and the two sides' runs need not
 *    match);
 *  - both calls block until their bytes are handed over: send until the link
 *    accepted them (it may wait for the peer to receive), receive until all
 *    `bytes` arrived. The plan orders every device's exchanges so that each
 *    send meets its receive (no cycle of devices waiting on each other);
 *  - they return 0 on success and anything else when the link failed; the
 *    model's invoke then stops and returns that value.
 * C99, freestanding: no allocation is required by the interface. */
#ifndef TINYFIT_LINK_H_
#define TINYFIT_LINK_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int tinyfit_link_send(int peer, const void* data, uint32_t bytes);
int tinyfit_link_recv(int peer, void* data, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_LINK_H_ */

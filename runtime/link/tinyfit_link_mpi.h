/* tinyfit_link.h over MPI (host): each device is one MPI process, the device
 * number is its rank in MPI_COMM_WORLD. Run the devices' programs together,
 * device d as rank d, e.g. with Open MPI's multiple-program syntax:
 *   mpirun -np 1 ./device0 : -np 1 ./device1
 * Not freestanding: needs an MPI library (Debian: libopenmpi-dev). */
#ifndef TINYFIT_LINK_MPI_H_
#define TINYFIT_LINK_MPI_H_

#include <stdint.h>

#include "tinyfit_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises MPI (MPI_Init with main's arguments) and returns this
 * process's device number, or -1 when MPI failed or the world has fewer than
 * `devices` processes. */
int tinyfit_link_mpi_open(int* argc, char*** argv, int devices);

/* Frees the receive buffers and finalises MPI. */
void tinyfit_link_mpi_close(void);

/* Bytes this process sent and received through the link since open. */
uint64_t tinyfit_link_mpi_bytes_sent(void);
uint64_t tinyfit_link_mpi_bytes_received(void);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_LINK_MPI_H_ */

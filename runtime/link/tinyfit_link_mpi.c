/* tinyfit_link.h over MPI point-to-point messages (tinyfit_link_mpi.h).
 *
 * A send is one MPI_Send of its bytes. MPI matches whole messages while the
 * link is a byte stream (a receive may take part of a send or several), so a
 * receive probes the next message from the peer, takes it whole into a
 * per-peer buffer and hands out its bytes across as many receives as needed.
 * MPI keeps messages between two ranks with one tag in order, which gives the
 * stream its order. */
#include "tinyfit_link_mpi.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Every link message carries this tag (MPI guarantees tags up to 32767). */
#define TINYFIT_LINK_TAG 0x7417

typedef struct {
  unsigned char* data; /* the message being handed out, or NULL */
  int size;            /* its bytes */
  int used;            /* bytes already handed out */
} pending_message;

static pending_message* pending; /* one per rank */
static int world_size;
static uint64_t bytes_sent, bytes_received;

int tinyfit_link_mpi_open(int* argc, char*** argv, int devices) {
  int rank = -1;
  if (MPI_Init(argc, argv) != MPI_SUCCESS) return -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size < devices) return -1;
  pending = (pending_message*)calloc((size_t)world_size, sizeof *pending);
  if (pending == NULL) return -1;
  bytes_sent = bytes_received = 0;
  return rank;
}

void tinyfit_link_mpi_close(void) {
  int i;
  for (i = 0; pending != NULL && i < world_size; ++i) free(pending[i].data);
  free(pending);
  pending = NULL;
  MPI_Finalize();
}

uint64_t tinyfit_link_mpi_bytes_sent(void) { return bytes_sent; }
uint64_t tinyfit_link_mpi_bytes_received(void) { return bytes_received; }

int tinyfit_link_send(int peer, const void* data, uint32_t bytes) {
  if (peer < 0 || peer >= world_size || bytes > (uint32_t)0x7fffffff) return 1;
  if (MPI_Send((void*)data, (int)bytes, MPI_BYTE, peer, TINYFIT_LINK_TAG, MPI_COMM_WORLD) != MPI_SUCCESS) return 2;
  bytes_sent += bytes;
  return 0;
}

int tinyfit_link_recv(int peer, void* data, uint32_t bytes) {
  unsigned char* out = (unsigned char*)data;
  pending_message* message;
  if (peer < 0 || peer >= world_size || pending == NULL) return 1;
  message = &pending[peer];
  while (bytes > 0) {
    uint32_t take;
    if (message->data == NULL || message->used == message->size) {
      MPI_Status status;
      int size = 0;
      free(message->data);
      message->data = NULL;
      if (MPI_Probe(peer, TINYFIT_LINK_TAG, MPI_COMM_WORLD, &status) != MPI_SUCCESS) return 2;
      MPI_Get_count(&status, MPI_BYTE, &size);
      /* An empty message carries nothing: take it and probe again. */
      message->data = (unsigned char*)malloc(size > 0 ? (size_t)size : 1u);
      if (message->data == NULL) return 3;
      if (MPI_Recv(message->data, size, MPI_BYTE, peer, TINYFIT_LINK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS) {
        return 2;
      }
      message->size = size;
      message->used = 0;
      continue;
    }
    take = (uint32_t)(message->size - message->used);
    if (take > bytes) take = bytes;
    memcpy(out, message->data + message->used, take);
    message->used += (int)take;
    out += take;
    bytes -= take;
    bytes_received += take;
  }
  return 0;
}

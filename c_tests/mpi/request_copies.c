/* request_copies.c: heat_ring.c with the non-blocking halo transfers
 * completed through copies of their requests, as code that keeps requests
 * in its own lists does: on even steps both copied into a list in the
 * other order and completed by one MPI_Waitall, on odd steps each copied
 * into one local and completed by MPI_Wait (the derivative finds a
 * transfer's record by the request's value where it was not posted at the
 * address the wait is passed; synth/mpi/requests.rs). */
#include <mpi.h>

static void wait_on_copies(MPI_Request *req, int s) {
  if (s % 2 == 0) {
    MPI_Request list[2] = {req[1], req[0]};
    MPI_Waitall(2, list, MPI_STATUSES_IGNORE);
  } else {
    for (int k = 0; k < 2; k++) {
      MPI_Request one = req[k];
      MPI_Wait(&one, MPI_STATUS_IGNORE);
    }
  }
}

#define COMPLETE_HALO(req, s) wait_on_copies(req, s)
#define LABEL "request copies"
#include "heat_ring.c"

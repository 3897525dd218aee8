/* test_poll.c: heat_ring.c with the non-blocking halo transfers completed
 * by polling: MPI_Testall on even steps, MPI_Test on each request on odd
 * ones (preprocess/mpi.rs follows each test with the wait its completion
 * amounts to). */
#include <mpi.h>

static void poll_halo(MPI_Request *req, int s) {
  int done = 0;
  if (s % 2 == 0) {
    while (!done)
      MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
  } else {
    for (int k = 0; k < 2; k++) {
      done = 0;
      while (!done)
        MPI_Test(&req[k], &done, MPI_STATUS_IGNORE);
    }
  }
}

#define COMPLETE_HALO(req, s) poll_halo(req, s)
#define LABEL "test poll"
#include "heat_ring.c"

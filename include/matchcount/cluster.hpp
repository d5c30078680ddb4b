// Runs spread over the ranks of an MPI job (`mpirun -np R matchcount ...`, or srun under
// Slurm; docs/usage.md "Several hosts"). Rank 0 does everything a single process does and
// shares out the long parts: the work units of the Ryser walks (CPU or GPU, each rank on its
// own devices) and the samples of estimates. The other ranks serve it. Results are combined
// exactly as in one process: the same bits for exact counts, CPU walks and CPU estimates with
// a fixed seed. Without MPI (a build without it, or a run without mpirun) there is one rank.
#pragma once

#include <string>

namespace matchcount {

namespace cluster {

/// From main, before anything else: joins the MPI job when launched as one of its ranks.
/// Rank 0 ends the other ranks' service when the process exits.
void init(int* argc, char*** argv);
int rank();
int size();
inline bool leader() { return rank() == 0; }
inline bool distributed() { return size() > 1; }
bool built_with_mpi();

/// Rank 0, at the end of main: the other ranks stop serving and exit with the same status,
/// then MPI ends; returns `status`. (Without it, an exit ends them at exit time, status 0.)
int finish(int status);
/// Ranks other than 0: serves rank 0 until it ends the run; returns the exit status.
int serve();
/// Prints the message with this rank's number on stderr and ends every rank of the job
/// (exit status 1): for failures that would leave the ranks' shares incomplete.
[[noreturn]] void abort_run(const std::string& message);

}  // namespace cluster
}  // namespace matchcount

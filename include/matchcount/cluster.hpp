// Runs spread over the ranks of an MPI job (`mpirun -np R matchcount ...`, or srun under
// Slurm; docs/usage.md "Several hosts"). Rank 0 does everything a single process does and
// shares out the long parts: the work units of the Ryser walks (CPU or GPU, each rank on its
// own devices) and the samples of estimates. The other ranks serve it. Results are combined
// exactly as in one process: the same bits for exact counts, CPU walks and CPU estimates with
// a fixed seed. Without MPI (a build without it, or a run without mpirun) there is one rank.
#pragma once

#include <functional>
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

/// The exit status of rank 0 when a rank of the job was lost (its process ended mid-count: a
/// crash, a signal, the OOM killer).
constexpr int kLostRankStatus = 4;
/// Rank 0: `stop` asks the running count to stop and save its checkpoint (the matchcount
/// program passes Checkpoint::request_stop). It is called when a rank is lost while rank 0
/// waits for its units; the count then saves without them and throws Interrupted, and
/// lost_ranks() says which rank it was. Without it, rank 0 ends the job at once with one line
/// on stderr and kLostRankStatus. Ranks on rank 0's host are found lost as soon as their
/// process is gone; ranks on other hosts when, after a stop, they do not return their units.
void on_rank_lost(std::function<void()> stop);
/// Rank 0: "MPI rank 2 (pid 1234 on vm) was lost" when ranks of the job were lost (checking
/// the processes of the ranks on this host now), else "".
std::string lost_ranks();

}  // namespace cluster
}  // namespace matchcount

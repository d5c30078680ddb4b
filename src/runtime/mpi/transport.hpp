// Private to the cluster stage: the few message-passing calls it needs, made by MPI
// (transport_mpi.cpp) or, in a build without MPI, by a single process (without_mpi/).
// Every call is serialised by one lock, so any thread may make them (MPI_THREAD_SERIALIZED
// suffices).
#pragma once

#include <string>

namespace matchcount::cluster::transport {

/// Starts MPI when the process was launched as a rank of a job (mpirun or srun set the
/// environment), else does nothing: a plain `matchcount` never pays MPI's start-up.
void init(int* argc, char*** argv);
bool active();
int rank();
int size();
/// Sends `bytes` to rank `dest` with `tag` (buffered by the library: returns at once).
void send(int dest, int tag, const std::string& bytes);
/// Waits for a message with `tag` from `source`.
std::string recv(int source, int tag);
/// A message with `tag` from `source`, when one is waiting.
bool try_recv(int source, int tag, std::string& bytes);
/// Ends every rank of the job (after a one-line message on stderr).
[[noreturn]] void abort(int code);
void finalize();

}  // namespace matchcount::cluster::transport

// The cluster transport over MPI (built when CMake finds MPI; see transport.hpp).
#ifdef MATCHCOUNT_HAVE_MPI
#include <mpi.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "runtime/mpi/transport.hpp"
#include "core/tuning.hpp"

namespace matchcount::cluster::transport {
namespace {

std::mutex& lock() {
  static std::mutex m;
  return m;
}
bool started = false;
int my_rank = 0, ranks = 1;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

void init(int* argc, char*** argv) {
  // Launched as a rank of a job: Open MPI's mpirun, MPICH/Intel's Hydra, or Slurm's srun.
  if (started || !tuning::tuning().launched_by_mpi) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  started = true;
  if (provided < MPI_THREAD_SERIALIZED) throw std::runtime_error("MPI: this MPI library cannot be called from several threads");
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
}

bool active() { return started; }
int rank() { return my_rank; }
int size() { return ranks; }

void send(int dest, int tag, const std::string& bytes) {
  std::lock_guard<std::mutex> g(lock());
  // MPI_Ssend would wait for the receiver; our messages are small, and a standard send of
  // them returns once buffered (eager protocol), which the protocol relies on only for speed.
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD), "MPI_Send");
}

std::string recv(int source, int tag) {
  std::string bytes;
  for (;;) {
    if (try_recv(source, tag, bytes)) return bytes;
    // Polling with the lock released lets other threads of this rank send meanwhile.
    struct timespec ts{0, 20000};
    nanosleep(&ts, nullptr);
  }
}

bool try_recv(int source, int tag, std::string& bytes) {
  std::lock_guard<std::mutex> g(lock());
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  bytes.assign(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return true;
}

void abort(int code) {
  if (started) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void finalize() {
  if (!started) return;
  started = false;
  MPI_Finalize();
}

}  // namespace matchcount::cluster::transport
#endif

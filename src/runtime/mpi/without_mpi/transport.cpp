// The cluster transport of a build without MPI: one process, rank 0 of 1 (see transport.hpp).
#ifndef MATCHCOUNT_HAVE_MPI
#include <cstdlib>
#include <stdexcept>

#include "runtime/mpi/transport.hpp"

namespace matchcount::cluster::transport {

void init(int*, char***) {}
bool active() { return false; }
int rank() { return 0; }
int size() { return 1; }
void send(int, int, const std::string&) { throw std::logic_error("cluster: no other rank to send to"); }
std::string recv(int, int) { throw std::logic_error("cluster: no other rank to receive from"); }
bool try_recv(int, int, std::string&) { return false; }
void abort(int code) { std::_Exit(code); }
void finalize() {}

}  // namespace matchcount::cluster::transport
#endif

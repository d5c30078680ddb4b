// Who the other ranks of an MPI job are, and whether they are still there (peers.hpp). What
// runs in rank 0's SIGTERM handler is async-signal-safe: kill, open, read, write, _exit and
// lock-free atomics, over data fixed before the handler is installed.
#include "runtime/mpi/peers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>

#include "matchcount/cluster.hpp"
#include "runtime/mpi/messages.hpp"
#include "runtime/mpi/transport.hpp"

namespace matchcount::cluster::peers {
namespace {

enum State : int { kAlive = 0, kLost = 1, kSilent = 2 };

struct Peer {
  long pid = 0;
  unsigned long long start = 0;  // the process's start time, clock ticks after boot (0: unknown)
  bool checkable = false;
  char label[128] = {};  // "2 (pid 1234 on vm)"
  std::atomic<int> state{kAlive};
};

// Rank 0: one per rank (index 0 unused), made by exchange() before the handler is installed and
// never freed, so that the handler can read it at any time.
Peer* peer = nullptr;
int peer_count = 0;
std::atomic<int> silent_tenths{0};  // the longest wait for a silent rank, in tenths of a second
std::atomic<bool> watching{false};  // the job runs: a rank whose process is gone is lost
std::atomic<bool> reported{false};  // the line without a checkpoint was written
std::atomic<int> end_status{-1};    // end_job() waits: a stop signal exits with this

/// Text in a fixed buffer, cut at its end: async-signal-safe (no allocation, no locale).
struct Text {
  char* buf;
  std::size_t cap, n = 0;
  Text(char* b, std::size_t c) : buf(b), cap(c) { buf[0] = 0; }
  Text& add(const char* s) {
    for (; *s && n + 1 < cap; ++s) buf[n++] = *s;
    buf[n] = 0;
    return *this;
  }
  Text& num(unsigned long long v) {
    char digits[24];
    int k = 0;
    do digits[k++] = static_cast<char>('0' + v % 10);
    while (v /= 10);
    char one[2] = {0, 0};
    while (k) one[0] = digits[--k], add(one);
    return *this;
  }
};

/// The state letter and start time of process `pid` from /proc/PID/stat; false when that cannot
/// be read (no such process, or no /proc). Async-signal-safe.
bool read_stat(long pid, char& state, unsigned long long& start) {
  char path[48];
  Text(path, sizeof path).add("/proc/").num(static_cast<unsigned long long>(pid)).add("/stat");
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t got = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (got <= 0) return false;
  // "pid (command) S ppid ...": the command may hold anything, so fields count from the last ')'.
  const char* const end = buf + got;
  const char* at = nullptr;
  for (const char* c = buf; c < end; ++c)
    if (*c == ')') at = c;
  if (!at || end - at < 3) return false;
  state = at[2];
  int field = 3;  // the state's; the start time is field 22
  const char* c = at + 2;
  for (; c < end && field < 22; ++c)
    if (*c == ' ') ++field;
  if (field < 22 || c == end) return false;
  start = 0;
  for (; c < end && *c >= '0' && *c <= '9'; ++c) start = start * 10 + static_cast<unsigned>(*c - '0');
  return true;
}

/// Whether checkable peer p's process has ended: no such process, a zombie its launcher has not
/// reaped yet, or another process that took its id since. Async-signal-safe.
bool gone(const Peer& p) {
  const int saved = errno;
  bool ended = false;
  if (::kill(static_cast<pid_t>(p.pid), 0) == -1) {
    ended = errno == ESRCH;
  } else {
    char state = 0;
    unsigned long long start = 0;
    ended = read_stat(p.pid, state, start) && (state == 'Z' || state == 'X' || start != p.start);
  }
  errno = saved;
  return ended;
}

int count_of(int state) {
  int n = 0;
  for (int r = 1; r < peer_count; ++r) n += peer[r].state.load() == state;
  return n;
}

/// "MPI rank 2 (pid 1234 on vm)" or "MPI ranks 1 (...), 2 (...)" for the n ranks in `state`,
/// at most 8 of them by name. Async-signal-safe.
void name(Text& t, int state, int n) {
  t.add(n > 1 ? "MPI ranks " : "MPI rank ");
  int named = 0;
  for (int r = 1; r < peer_count && named < 8; ++r)
    if (peer[r].state.load() == state) t.add(named++ ? ", " : "").add(peer[r].label);
  if (named < n) t.add(" and ").num(static_cast<unsigned>(n - named)).add(" more");
}

/// "MPI rank 2 (pid 1234 on vm) was lost", and/or "MPI rank 3 (...) did not return its units
/// within 1.5 s of the stop"; nothing when no rank was. Async-signal-safe.
void compose(Text& t) {
  const int lost_ranks = count_of(kLost), silent_ranks = count_of(kSilent);
  if (lost_ranks) {
    name(t, kLost, lost_ranks);
    t.add(lost_ranks > 1 ? " were lost" : " was lost");
  }
  if (silent_ranks) {
    if (lost_ranks) t.add(" and ");
    name(t, kSilent, silent_ranks);
    const int tenths = silent_tenths.load();
    t.add(silent_ranks > 1 ? " did not return their units within " : " did not return its units within ")
        .num(static_cast<unsigned>(tenths / 10)).add(".").num(static_cast<unsigned>(tenths % 10)).add(" s of the stop");
  }
}

/// Without a checkpoint: the one line, once. Async-signal-safe.
void write_line() {
  if (reported.exchange(true)) return;
  char buf[2048];
  Text t(buf, sizeof buf);
  t.add("matchcount: error: ");
  compose(t);
  t.add("; --checkpoint FILE lets a rerun resume from where a run stops\n");
  if (::write(STDERR_FILENO, buf, t.n) < 0) {}
}

bool any_lost_now() {
  bool any = false;
  for (int r = 1; r < peer_count; ++r) any = lost(r) || any;
  return any;
}

// (A C name of its own: the program has an on_stop_signal.)
extern "C" void matchcount_cluster_on_stop(int sig) {
  if (const int status = end_status.load(); status >= 0) _exit(status);
  if (any_lost_now()) {
    write_line();
    _exit(kLostRankStatus);
  }
  // No rank is lost: a plain stop, ended by the signal's default action as before.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void handle(int sig) {
  struct sigaction sa {};
  sa.sa_handler = matchcount_cluster_on_stop;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
}

/// This host's name, control characters replaced (it goes into one-line messages).
std::string host_name() {
  char h[256] = {};
  if (::gethostname(h, sizeof h - 1) != 0) return "?";
  std::string s(h);
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s.substr(0, 64);
}

}  // namespace

void exchange() {
  const int ranks = transport::size();
  if (ranks < 2 || peer) return;
  const long me = static_cast<long>(::getpid());
  char state = 0;
  unsigned long long start = 0;
  if (!read_stat(me, state, start)) start = 0;
  if (transport::rank() != 0) {
    Writer w;
    w.put(me).put(start).put_string(host_name());
    transport::send(0, kHelloTag, w.bytes);
    return;
  }
  const std::string here = host_name();
  peer = new Peer[static_cast<std::size_t>(ranks)];
  for (int r = 1; r < ranks; ++r) {
    const std::string msg = transport::recv(r, kHelloTag);
    Reader in(msg);
    Peer& p = peer[r];
    p.pid = in.get<long>();
    p.start = in.get<unsigned long long>();
    const std::string host = in.get_string();
    // Only a process this one sees as the rank described itself is checked: on another host,
    // or in another process namespace under the same host name, its id means nothing here.
    unsigned long long seen = 0;
    p.checkable = host == here && p.start != 0 && read_stat(p.pid, state, seen) && seen == p.start && state != 'Z';
    Text(p.label, sizeof p.label).num(static_cast<unsigned>(r)).add(" (pid ").num(static_cast<unsigned long long>(p.pid))
        .add(" on ").add(host.c_str()).add(")");
  }
  peer_count = ranks;
  watching = true;
  handle(SIGTERM);
}

bool checkable(int r) { return r > 0 && r < peer_count && peer[r].checkable; }

bool lost(int r) {
  if (r <= 0 || r >= peer_count) return false;
  Peer& p = peer[r];
  if (p.state.load() != kAlive) return true;
  if (!p.checkable || !watching.load() || !gone(p)) return false;
  int alive = kAlive;
  p.state.compare_exchange_strong(alive, kLost);
  return true;
}

void silent(int r, double seconds) {
  if (r <= 0 || r >= peer_count) return;
  int alive = kAlive;
  peer[r].state.compare_exchange_strong(alive, kSilent);
  const int tenths = static_cast<int>(seconds * 10 + 0.999);
  for (int was = silent_tenths.load(); was < tenths && !silent_tenths.compare_exchange_weak(was, tenths);) {}
}

bool any_lost() { return any_lost_now(); }

std::string describe() {
  char buf[2048];
  Text t(buf, sizeof buf);
  compose(t);
  return std::string(buf, t.n);
}

void ending() { watching = false; }

void end_job(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  end_status = status;
  handle(SIGTERM);
  handle(SIGINT);
  for (int i = 0; i < 40; ++i) {  // 2 s for the launcher's signal
    struct timespec ts{0, 50'000'000};
    nanosleep(&ts, nullptr);
  }
  transport::abort(status);
}

void report_and_end(int status) {
  write_line();
  end_job(status);
}

}  // namespace matchcount::cluster::peers

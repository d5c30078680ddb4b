// The stop signals of a count with --checkpoint (cli_stop.hpp). Everything the handler touches
// is a lock-free atomic, clock_gettime, write or _exit: async-signal-safe.
#include "cli_stop.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <ctime>

namespace matchcount::cli {
namespace {

Checkpoint* g_checkpoint = nullptr;
std::atomic<int> g_signals{0};
std::atomic<long> g_first_sender{0}, g_first_signal{0};
std::atomic<long long> g_first_ns{0};
std::atomic<bool> g_first_recorded{false};

long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

extern "C" void on_stop_signal(int sig, siginfo_t* info, void*) {
  const long sender = info && info->si_code == SI_USER ? static_cast<long>(info->si_pid) : 0;  // 0: the terminal
  // One handler is the first, whichever threads two signals reach at once.
  if (g_signals.fetch_add(1) == 0) {
    g_first_sender = sender, g_first_signal = sig, g_first_ns = monotonic_ns();
    g_first_recorded = true;
    if (g_checkpoint) g_checkpoint->request_stop(sig);
    return;
  }
  // The first may be running on another thread: its record is a few stores away.
  for (int spin = 0; spin < (1 << 24) && !g_first_recorded.load(); ++spin) {}
  if (g_first_recorded.load() && sender != 0 && sender == g_first_sender.load() && sig == g_first_signal.load() &&
      monotonic_ns() - g_first_ns.load() < 500000000LL)
    return;
  const char msg[] = "\nmatchcount: second signal: exiting without a final checkpoint\n";
  if (::write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {}
  _exit(128 + sig);
}

}  // namespace

void stop_on_signals(Checkpoint* checkpoint) {
  g_checkpoint = checkpoint;
  // Both signals blocked while the handler runs on a thread, so that one thread handles them
  // in turn.
  struct sigaction action {};
  action.sa_sigaction = on_stop_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace matchcount::cli

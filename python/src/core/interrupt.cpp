// The SIGINT handler of a running count and the checkpoint that lets it stop.
#include "interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <system_error>

namespace matchcount::py {

namespace {

std::atomic<StopToken*> g_token{nullptr};
std::atomic<int> g_signals{0};  // lock-free, so safe in a handler

extern "C" void on_sigint(int sig) {
  if (g_signals.fetch_add(1) > 0) {
    const char msg[] = "\nmatchcount: second interrupt: exiting\n";
    if (::write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {}
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  if (StopToken* t = g_token.load()) t->request_stop(sig);
}

}  // namespace

StopToken::StopToken(const std::string& user_path, double every_seconds, bool wanted) {
  if (!user_path.empty()) {
    checkpoint_ = std::make_unique<Checkpoint>(user_path, every_seconds);
  } else if (wanted) {
    // A file of this process's own name, written only on a stop (every = 1e300 s: it never
    // comes due by itself). A stale one, left by an earlier process of the same id, would be
    // read as a checkpoint of another input: it goes first.
    static std::atomic<unsigned long> serial{0};
    std::error_code ec;
    private_file_ = std::filesystem::temp_directory_path(ec) /
                    ("matchcount-py-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".ckpt");
    remove_private_file();
    checkpoint_ = std::make_unique<Checkpoint>(private_file_.string(), 1e300);
  }
}

void StopToken::remove_private_file() {
  std::error_code ec;
  std::filesystem::remove(private_file_, ec);
  std::filesystem::remove(private_file_.string() + ".tmp", ec);
}

StopToken::~StopToken() {
  checkpoint_.reset();
  if (!private_file_.empty() && stopped_.load()) remove_private_file();  // only a stop writes it
}

void StopToken::request_stop(int signal) noexcept {
  stopped_.store(signal);
  if (checkpoint_) checkpoint_->request_stop(signal);
}

Deadline::Deadline(double seconds, StopToken* token) {
  thread_ = std::thread([this, seconds, token] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
      token->request_stop(kDeadlineSignal);
  });
}

Deadline::~Deadline() {
  cancel();
  thread_.join();
}

void Deadline::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  wake_.notify_all();
}

SigintGuard::SigintGuard(bool active, StopToken* token) {
  if (!active) return;
  struct sigaction now {};
  now.sa_handler = on_sigint;
  sigemptyset(&now.sa_mask);
  if (sigaction(SIGINT, nullptr, &old_) != 0 || old_.sa_handler == SIG_IGN) return;  // respect SIG_IGN
  g_signals.store(0);
  g_token.store(token);
  active_ = sigaction(SIGINT, &now, nullptr) == 0;
}

SigintGuard::~SigintGuard() { restore(); }

bool SigintGuard::signalled() const { return active_ ? g_signals.load() > 0 : signalled_; }

void SigintGuard::restore() {
  if (!active_) return;
  sigaction(SIGINT, &old_, nullptr);
  g_token.store(nullptr);
  active_ = false;
  signalled_ = g_signals.load() > 0;
}

}  // namespace matchcount::py

// matchcount-slow, built for the tests only: the matchcount program with a pause after every
// unit of a CPU walk, so that tests can stop a walk part-way (a signal, a checkpoint, other
// MPI ranks asking for units) at leisure. The pause comes through the library's walk
// observer; the library itself never slows down.
// Usage: matchcount-slow MICROSECONDS [matchcount's arguments]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cli_main.hpp"
#include "matchcount/engine.hpp"

namespace {

std::chrono::microseconds unit_pause{0};

void sleep_after_unit(std::uint64_t) { std::this_thread::sleep_for(unit_pause); }

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const unsigned long long us = argc >= 2 ? std::strtoull(argv[1], &end, 10) : 0;
  if (argc < 2 || end == argv[1] || *end) {
    std::fprintf(stderr, "usage: matchcount-slow MICROSECONDS [matchcount's arguments]\n");
    return 2;
  }
  unit_pause = std::chrono::microseconds(us);
  if (us) matchcount::set_walk_observer(sleep_after_unit);
  std::vector<char*> args{argv[0]};
  args.insert(args.end(), argv + 2, argv + argc);
  args.push_back(nullptr);
  return cli_main(argc - 1, args.data());
}

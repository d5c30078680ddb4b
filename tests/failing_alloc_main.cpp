// matchcount-failing-alloc, built for the tests only: the matchcount program whose GMP
// allocation number N (0-based, counted from the start of the program) fails as if memory had
// run out, so that tests can check that an allocation failure inside GMP ends with exit code 1
// and one line rather than GMP's abort.
// Usage: matchcount-failing-alloc N [matchcount's arguments]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cli_main.hpp"
#include "matchcount/memory.hpp"

int main(int argc, char** argv) {
  char* end = nullptr;
  const long long n = argc >= 2 ? std::strtoll(argv[1], &end, 10) : 0;
  if (argc < 2 || end == argv[1] || *end) {
    std::fprintf(stderr, "usage: matchcount-failing-alloc N [matchcount's arguments]\n");
    return 2;
  }
  matchcount::fail_gmp_allocation_after(n);
  std::vector<char*> args{argv[0]};
  args.insert(args.end(), argv + 2, argv + argc);
  args.push_back(nullptr);
  return cli_main(argc - 1, args.data());
}

// GBSKernels 0.2.2 beside matchcount on the same matrices (benchmarks only, never a test;
// docs/benchmarks.md, "Batches beside GBSKernels"): its host API (host_api.cu, the layer its
// Python binding calls) on a stack from a raw file, timed whole (host to device and back, as
// matchcount's batches are), best of the repeats after a warm-up, the values written out for
// scripts/gbsk_accuracy.py. Built on the GPU machine from its sdist:
//   GB=/tmp/gbskernels-0.2.2/core
//   nvcc -O3 -arch=sm_90 -rdc=true -I$GB scripts/gbsk_compare.cu $GB/{permanent,permanent_coop,permanent_dd,
//     hafnian,hafnian_dd,loop_hafnian,loop_hafnian_dd,torontonian,torontonian_dd,certified,certified_dd,
//     repeated,tor_recursive,host_api}.cu -o gbsk_compare
// Usage: gbsk_compare haf|lhaf|tor SIZE COUNT IN.bin OUT.bin [REPEATS]
//   SIZE: the matrix side for haf and lhaf, the modes for tor (matrices 2 SIZE square); IN.bin
//   holds COUNT matrices of complex128, row-major; OUT.bin gets COUNT complex128 values.
#include <cuComplex.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
int gbs_haf_host(const cuDoubleComplex* m, int N, int b, cuDoubleComplex* o);
int gbs_lhaf_host(const cuDoubleComplex* m, int N, int b, cuDoubleComplex* o);
int gbs_tor_host(const cuDoubleComplex* m, int n, int b, cuDoubleComplex* o);
}

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: gbsk_compare haf|lhaf|tor SIZE COUNT IN.bin OUT.bin [REPEATS]\n");
    return 2;
  }
  const char* what = argv[1];
  const int size = std::atoi(argv[2]), count = std::atoi(argv[3]), repeats = argc > 6 ? std::atoi(argv[6]) : 3;
  const int side = std::strcmp(what, "tor") == 0 ? 2 * size : size;
  std::vector<cuDoubleComplex> in(static_cast<size_t>(count) * side * side), out(static_cast<size_t>(count));
  FILE* f = std::fopen(argv[4], "rb");
  if (!f || std::fread(in.data(), sizeof(cuDoubleComplex), in.size(), f) != in.size()) {
    std::fprintf(stderr, "gbsk_compare: cannot read %s\n", argv[4]);
    return 2;
  }
  std::fclose(f);
  int (*fn)(const cuDoubleComplex*, int, int, cuDoubleComplex*) =
      std::strcmp(what, "haf") == 0 ? gbs_haf_host : std::strcmp(what, "lhaf") == 0 ? gbs_lhaf_host : gbs_tor_host;
  double best = 1e300;
  for (int r = 0; r <= repeats; ++r) {  // r = 0: the warm-up
    const auto t0 = std::chrono::steady_clock::now();
    const int err = fn(in.data(), size, count, out.data());
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (err) {
      std::fprintf(stderr, "gbsk_compare: GBSKernels returned %d\n", err);
      return 1;
    }
    if (r > 0 && t < best) best = t;
  }
  f = std::fopen(argv[5], "wb");
  std::fwrite(out.data(), sizeof(cuDoubleComplex), out.size(), f);
  std::fclose(f);
  std::printf("gbskernels %s %d x %d: %.4f s, %.4g /s (whole call)\n", what, count, size, best, count / best);
  return 0;
}

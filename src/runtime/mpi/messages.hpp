// Private to the cluster stage: message tags and a byte writer/reader for them. Ranks run the
// same binary on the same kind of host, so numbers travel as their bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace matchcount::cluster {

enum Tag : int { kJobTag = 1, kWalkTag = 2, kSampleTag = 3, kHelloTag = 4 };
/// Jobs from rank 0.
enum Job : std::uint64_t { kEnd = 1, kWalks = 2, kSampler = 3, kSamples = 4, kSamplerEnd = 5 };
/// Walk messages to rank 0, and the runs it hands out.
enum WalkMessage : std::uint64_t { kRequest = 1, kResult = 2 };

class Writer {
 public:
  template <class T>
  Writer& put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Writer& put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes += s;
    return *this;
  }
  template <class T>
  Writer& put_vector(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    if (!v.empty()) bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    return *this;
  }
  std::string bytes;
};

class Reader {
 public:
  explicit Reader(const std::string& b) : b_(b) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<std::uint64_t>();
    need(n * sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }

 private:
  void need(std::size_t n) const {
    if (at_ + n > b_.size()) throw std::runtime_error("cluster: a message from another rank is cut short");
  }
  const std::string& b_;
  std::size_t at_ = 0;
};

}  // namespace matchcount::cluster

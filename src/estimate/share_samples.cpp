// Rounds of estimation samples split over the ranks (see share_samples.hpp), and the other
// ranks' side of it.
#include "estimate/share_samples.hpp"

#include <algorithm>

#include "matchcount/cluster.hpp"
#include "matchcount/gpu.hpp"
#include "estimate/sampler_service.hpp"
#include "runtime/mpi/transport.hpp"

namespace matchcount::cluster {
namespace {

void put_config(Writer& w, const estimate::SamplerConfig& c, bool gpu) {
  w.put(static_cast<int>(c.method)).put(c.params.scale_interval).put(c.params.scale_iterations).put(c.params.scale_radius).put(c.params.bethe).put(c.particles);
  w.put(c.seed).put(c.block_id).put(c.threads).put(c.small_paths).put(c.graph).put(gpu);
}

class SharedSampler final : public estimate::Sampler {
 public:
  SharedSampler(std::unique_ptr<estimate::Sampler> own, int n)
      : own_(std::move(own)), batch_(own_->batch_size() > 0 ? own_->batch_size() : estimate::batch_samples(n)) {}
  ~SharedSampler() override {
    Writer w;
    w.put<std::uint64_t>(kSamplerEnd);
    for (int r = 1; r < size(); ++r) transport::send(r, kJobTag, w.bytes);
  }
  estimate::SampleSums run(std::uint64_t first, std::uint64_t count) override {
    estimate::SampleSums total;
    for (const auto& p : run_parts(first, count)) total.merge(p);
    return total;
  }
  /// Rank r takes batches [B r / R, B (r + 1) / R) of the round's B batches.
  std::vector<estimate::SampleSums> run_parts(std::uint64_t first, std::uint64_t count) override {
    const auto ranks = static_cast<std::uint64_t>(size());
    const std::uint64_t batches = (count + batch_ - 1) / batch_;
    auto piece = [&](std::uint64_t r) {
      const std::uint64_t lo = std::min(count, batches * r / ranks * batch_);
      const std::uint64_t hi = std::min(count, batches * (r + 1) / ranks * batch_);
      return std::pair{first + lo, hi - lo};
    };
    for (std::uint64_t r = 1; r < ranks; ++r) {
      Writer w;
      w.put<std::uint64_t>(kSamples).put(piece(r).first).put(piece(r).second);
      transport::send(static_cast<int>(r), kJobTag, w.bytes);
    }
    std::vector<estimate::SampleSums> parts;
    if (piece(0).second > 0) parts = own_->run_parts(piece(0).first, piece(0).second);
    for (std::uint64_t r = 1; r < ranks; ++r) {
      const std::string reply = transport::recv(static_cast<int>(r), kSampleTag);
      Reader in(reply);
      for (const auto& p : in.get_vector<estimate::SampleSums>()) parts.push_back(p);
    }
    return parts;
  }
  std::string device() const override { return own_->device() + " and " + std::to_string(size() - 1) + " more rank(s)"; }

 private:
  std::unique_ptr<estimate::Sampler> own_;
  std::uint64_t batch_;
};

}  // namespace

std::unique_ptr<estimate::Sampler> share_samples(std::unique_ptr<estimate::Sampler> own, const SparseMatrix<double>& block,
                                                 const estimate::SamplerConfig& cfg, bool gpu) {
  Writer w;
  w.put<std::uint64_t>(kSampler);
  put_matrix(w, block);
  put_config(w, cfg, gpu);
  for (int r = 1; r < size(); ++r) transport::send(r, kJobTag, w.bytes);
  return std::make_unique<SharedSampler>(std::move(own), block.rows);
}

void serve_sampler(Reader& in) {
  const SparseMatrix<double> block = get_matrix<double>(in);
  estimate::SamplerConfig cfg;
  cfg.method = static_cast<estimate::Method>(in.get<int>());
  cfg.params.scale_interval = in.get<int>();
  cfg.params.scale_iterations = in.get<int>();
  cfg.params.scale_radius = in.get<int>();
  cfg.params.bethe = in.get<bool>();
  cfg.particles = in.get<int>();
  cfg.seed = in.get<std::uint64_t>();
  cfg.block_id = in.get<std::uint32_t>();
  cfg.threads = in.get<int>();
  cfg.small_paths = in.get<bool>();
  cfg.graph = in.get<bool>();
  const bool gpu = in.get<bool>();
  // A hafnian's block is a graph; its data stays alive with the sampler until kSamplerEnd.
  const estimate::BlockData data = cfg.graph ? estimate::BlockData{} : estimate::BlockData::from(block);
  const estimate::GraphData graph = cfg.graph ? estimate::GraphData::from(block, cfg.params.bethe) : estimate::GraphData{};
  std::unique_ptr<estimate::Sampler> sampler;
  if (gpu) {
    try {
      sampler = cfg.graph ? estimate::make_gpu_graph_sampler(graph, cfg) : estimate::make_gpu_sampler(data, cfg);
    } catch (const GpuError&) {
    }
  }
  if (!sampler) sampler = cfg.graph ? estimate::make_graph_cpu_sampler(graph, cfg) : estimate::make_cpu_sampler(data, cfg);
  for (;;) {
    const std::string job = transport::recv(0, kJobTag);
    Reader j(job);
    const auto kind = j.get<std::uint64_t>();
    if (kind == kSamplerEnd) return;
    if (kind != kSamples) abort_run("an unexpected job from rank 0 while sampling");
    const auto first = j.get<std::uint64_t>(), count = j.get<std::uint64_t>();
    Writer w;
    w.put_vector(count > 0 ? sampler->run_parts(first, count) : std::vector<estimate::SampleSums>{});
    transport::send(0, kSampleTag, w.bytes);
  }
}

}  // namespace matchcount::cluster

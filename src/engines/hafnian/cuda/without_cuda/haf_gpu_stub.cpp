// Stand-in for the GPU hafnian walk when the library is built without nvcc.
#include <algorithm>

#include "engines/hafnian/cuda/haf_gpu_job.hpp"

namespace matchcount::gpu {

HafResult run_hafnian_walk(const HafJob&) { throw GpuError("matchcount was built without CUDA"); }

LaneRootBuffer::LaneRootBuffer(std::size_t doubles) : data_(new double[std::max<std::size_t>(doubles, 1)]) {}
LaneRootBuffer::~LaneRootBuffer() { delete[] data_; }

std::vector<std::uint64_t> run_hafnian_lanes(const HafLaneJob&) { throw GpuError("matchcount was built without CUDA"); }
std::vector<double> run_hafnian_enum(const HafLaneJob&) { throw GpuError("matchcount was built without CUDA"); }

struct EnumQueue::State {};
EnumQueue::EnumQueue() { throw GpuError("matchcount was built without CUDA"); }
EnumQueue::~EnumQueue() = default;
bool EnumQueue::start(const HafLaneJob&) { throw GpuError("matchcount was built without CUDA"); }
EnumValues EnumQueue::take() { throw GpuError("matchcount was built without CUDA"); }
int EnumQueue::in_flight() const { return 0; }

struct LaneQueue::State {};
LaneQueue::LaneQueue() { throw GpuError("matchcount was built without CUDA"); }
LaneQueue::~LaneQueue() = default;
bool LaneQueue::start(const HafLaneJob&) { throw GpuError("matchcount was built without CUDA"); }
LaneSums LaneQueue::take() { throw GpuError("matchcount was built without CUDA"); }
int LaneQueue::in_flight() const { return 0; }

}  // namespace matchcount::gpu

// Renderings of an estimate: a JSON object, and the summary lines for stderr.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/json_util.hpp"
#include "matchcount/report.hpp"

namespace matchcount {
namespace {

std::string percent(double x) {
  char buf[40];
  if (!std::isfinite(x)) return "inf";
  // 12%, 0.36%, 0.0036%; scientific notation only for shares below a millionth.
  std::snprintf(buf, sizeof buf, x == 0 ? "0%%" : x >= 0.1 ? "%.0f%%" : x >= 1e-6 ? "%.2g%%" : "%.1e%%", 100.0 * x);
  return buf;
}

std::string heavy_tail_reason(const BlockEstimate& b) {
  char buf[320];
  const double nonzero = static_cast<double>(b.samples - b.zero_samples);
  if (nonzero < 2) std::snprintf(buf, sizeof buf, "only %.0f of %llu samples are nonzero", nonzero, static_cast<unsigned long long>(b.samples));
  else if (b.max_weight_share > 0.1 + 5.0 / static_cast<double>(b.samples))
    std::snprintf(buf, sizeof buf, "the largest of %llu samples carries %s of their sum", static_cast<unsigned long long>(b.samples), percent(b.max_weight_share).c_str());
  else if (b.log_weight_variance > std::log(std::max(nonzero, 2.0)))
    std::snprintf(buf, sizeof buf, "ln(sample) has variance %.3g, so about e^%.3g samples are needed to see the weight that matters (%llu were drawn)",
                  b.log_weight_variance, b.log_weight_variance, static_cast<unsigned long long>(b.samples));
  else  // the mean's skewness falls as 1/sqrt(samples)
    std::snprintf(buf, sizeof buf, "the samples are so skewed (var ln sample %.3g) that the mean of %llu is still skewed (%.2g, over %.2g): "
                  "the 95%% interval covers less often than it says; about %.2g samples would do",
                  b.log_weight_variance, static_cast<unsigned long long>(b.samples), b.mean_skewness, kMaxMeanSkewness,
                  static_cast<double>(b.samples) * std::pow(b.mean_skewness / kMaxMeanSkewness, 2));
  return buf;
}

/// "12x12" for a permanent's block, "252-vertex" for a graph's.
std::string block_name(const EstimateReport& r, const BlockEstimate& b) {
  return r.hafnian ? std::to_string(b.n) + "-vertex" : std::to_string(b.n) + "x" + std::to_string(b.n);
}

/// A JSON number when the value is a normal double (printed to round-trip), else a string in
/// scientific notation with 17 digits ("1.2345678901234567e+1254"): dimer counts of large
/// grids overflow a double.
report_detail::Json wide_json(const WideReal& x) {
  const double d = x.to_double();
  if (x.zero() || std::isnormal(d)) return d;
  return x.to_string(17);
}

}  // namespace

std::string estimate_json(const EstimateReport& r, const ReadResult& in, const RunInfo& info) {
  using report_detail::Json;
  const int d = r.significant_digits();
  const bool bounded = std::isfinite(r.rel_std_error);  // one sample: no variance estimate
  Json j = report_detail::json_head("estimate", in, info, r.rows, r.cols, r.nnz);
  // Counted exactly after all (cheap blocks, or no perfect matching): the value as a count
  // gives it, an integer string where it is an exact integer.
  const bool integer = r.exact_value && r.exact_value->value.index() == 0;
  j["value"] = r.exact_value ? report_detail::value_json(*r.exact_value) : wide_json(r.estimate);
  j["value_kind"] = integer ? "integer" : "real";
  j["exact"] = r.exact;
  j["counts"] = r.hafnian ? "hafnian" : "permanent";
  j["method"] = to_string(r.method);
  j["estimate_rounded"] = r.estimate.to_string(d);
  j["log10_estimate"] = r.estimate.log10();  // -inf (null) for 0
  j["rel_std_error"] = r.rel_std_error;
  j["std_error"] = bounded ? wide_json(r.estimate * r.rel_std_error) : Json(nullptr);
  j["ci95"] = bounded ? Json::array({wide_json(r.ci_low), wide_json(r.ci_high)}) : Json(nullptr);
  j["samples"] = r.samples;
  j["zero_fraction"] = r.samples ? static_cast<double>(r.zero_samples) / static_cast<double>(r.samples) : 0.0;
  j["heavy_tail"] = r.heavy_tail;
  j["target_met"] = r.target_met;
  j["matching_size"] = r.matching_size;
  Json blocks = Json::array();
  for (const auto& b : r.blocks)
    blocks.push_back({{"n", b.n},
                      {"nnz", b.nnz},
                      {"exact", b.exact},
                      {"value", wide_json(b.mean)},
                      {"rel_std_error", b.rel_std_error},
                      {"samples", b.samples},
                      {"zero_samples", b.zero_samples},
                      {"max_weight_share", b.max_weight_share},
                      {"log_weight_variance", b.log_weight_variance},
                      {"log_weight_mean", b.log_weight_mean},
                      {"mean_skewness", report_detail::json_real(b.mean_skewness)},
                      {"heavy_tail", b.heavy_tail},
                      {"device", b.device},
                      {"seconds", b.seconds},
                      {"samples_per_second", b.seconds > 0 ? static_cast<double>(b.samples) / b.seconds : 0.0}});
  j["blocks"] = std::move(blocks);
  j["threads"] = info.threads;
  j["seconds"] = {{"read", info.read_seconds}, {"total", r.seconds}};
  j["notes"] = report_detail::json_notes(in.notes, r.notes);
  return report_detail::json_text(j);
}

std::string estimate_text(const EstimateReport& r, const ReadResult& in, const RunInfo& info, bool verbose) {
  std::ostringstream o;
  const int d = r.significant_digits();
  if (verbose) {
    o << "matchcount: " << info.file << ": " << in.format << ", " << r.rows << "x" << r.cols << ", " << r.nnz << " entries\n";
    for (const auto& b : r.blocks) {
      o << "matchcount:   block " << block_name(r, b) << " (" << b.nnz << " entries): ";
      if (b.exact) o << "exact " << b.mean.to_string(17) << "\n";
      else
        o << b.mean.to_string(d + 1) << " +- " << percent(b.rel_std_error) << ", " << b.samples << " samples on "
          << b.device << " in " << json_number(b.seconds) << " s, largest sample " << percent(b.max_weight_share)
          << " of the sum, var(ln sample) " << json_number(b.log_weight_variance) << "\n";
    }
  }
  if (r.exact) {
    o << "matchcount: exact: " << (r.notes.empty() ? std::string("no block needed sampling") : r.notes.back()) << "\n";
    return o.str();
  }
  o << "matchcount: estimate " << r.estimate.to_string(d) << ", relative standard error " << percent(r.rel_std_error);
  if (std::isfinite(r.rel_std_error))
    o << ", 95% interval [" << r.ci_low.to_string(d + 1) << ", " << r.ci_high.to_string(d + 1) << "]\n";
  else
    o << ", no interval (one sample has no variance estimate)\n";
  std::string device;
  for (const auto& b : r.blocks)
    if (!b.exact) device = b.device;
  o << "matchcount: " << to_string(r.method) << " on " << device << ": " << r.samples << " samples ("
    << percent(r.samples ? static_cast<double>(r.zero_samples) / static_cast<double>(r.samples) : 0.0) << " zero) in "
    << json_number(r.seconds) << " s\n";
  for (const auto& b : r.blocks)
    if (b.heavy_tail)
      o << "matchcount: warning: heavy tail in the " << block_name(r, b) << " block: " << heavy_tail_reason(b)
        << "; the error bar is not reliable (more samples or scaling+ help)\n";
  if (!r.target_met && !r.heavy_tail) o << "matchcount: note: the relative error target was not reached within the limits\n";
  for (const auto& n : r.notes) o << "matchcount: note: " << n << "\n";
  return o.str();
}

}  // namespace matchcount

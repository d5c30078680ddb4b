// Renderings of an estimate: a JSON object, and the summary lines for stderr.
#include <cmath>
#include <cstdio>
#include <sstream>

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
  char buf[200];
  const double nonzero = static_cast<double>(b.samples - b.zero_samples);
  if (nonzero < 2) std::snprintf(buf, sizeof buf, "only %.0f of %llu samples are nonzero", nonzero, static_cast<unsigned long long>(b.samples));
  else if (b.max_weight_share > 0.1 + 5.0 / static_cast<double>(b.samples))
    std::snprintf(buf, sizeof buf, "the largest of %llu samples carries %s of their sum", static_cast<unsigned long long>(b.samples), percent(b.max_weight_share).c_str());
  else
    std::snprintf(buf, sizeof buf, "ln(sample) has variance %.3g, so about e^%.3g samples are needed to see the weight that matters (%llu were drawn)",
                  b.log_weight_variance, b.log_weight_variance, static_cast<unsigned long long>(b.samples));
  return buf;
}

}  // namespace

std::string estimate_json(const EstimateReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  const int d = r.significant_digits();
  const bool bounded = std::isfinite(r.rel_std_error);  // one sample: no variance estimate
  o << "{\"file\":" << json_quote(info.file) << ",\"format\":" << json_quote(in.format) << ",\"rows\":" << r.rows
    << ",\"cols\":" << r.cols << ",\"nnz\":" << r.nnz << ",\"method\":" << json_quote(to_string(r.method))
    << ",\"estimate\":" << json_quote(r.estimate.to_string(17)) << ",\"estimate_rounded\":" << json_quote(r.estimate.to_string(d))
    << ",\"log10_estimate\":" << json_number(r.estimate.log10()) << ",\"rel_std_error\":" << json_number(r.rel_std_error)
    << ",\"std_error\":" << (bounded ? json_quote((r.estimate * r.rel_std_error).to_string(3)) : "null") << ",\"ci95\":"
    << (bounded ? "[" + json_quote(r.ci_low.to_string(d + 1)) + "," + json_quote(r.ci_high.to_string(d + 1)) + "]" : "null")
    << ",\"exact\":" << (r.exact ? "true" : "false") << ",\"samples\":" << r.samples
    << ",\"zero_fraction\":" << json_number(r.samples ? static_cast<double>(r.zero_samples) / static_cast<double>(r.samples) : 0.0)
    << ",\"heavy_tail\":" << (r.heavy_tail ? "true" : "false") << ",\"target_met\":" << (r.target_met ? "true" : "false")
    << ",\"matching_size\":" << r.matching_size << ",\"blocks\":[";
  for (std::size_t i = 0; i < r.blocks.size(); ++i) {
    const auto& b = r.blocks[i];
    o << (i ? "," : "") << "{\"n\":" << b.n << ",\"nnz\":" << b.nnz << ",\"exact\":" << (b.exact ? "true" : "false")
      << ",\"estimate\":" << json_quote(b.mean.to_string(17)) << ",\"rel_std_error\":" << json_number(b.rel_std_error)
      << ",\"samples\":" << b.samples << ",\"zero_samples\":" << b.zero_samples
      << ",\"max_weight_share\":" << json_number(b.max_weight_share)
      << ",\"log_weight_variance\":" << json_number(b.log_weight_variance)
      << ",\"heavy_tail\":" << (b.heavy_tail ? "true" : "false") << ",\"device\":" << json_quote(b.device)
      << ",\"seconds\":" << json_number(b.seconds) << ",\"samples_per_second\":"
      << json_number(b.seconds > 0 ? static_cast<double>(b.samples) / b.seconds : 0.0) << "}";
  }
  o << "],\"threads\":" << info.threads << ",\"seconds\":{\"read\":" << json_number(info.read_seconds)
    << ",\"total\":" << json_number(r.seconds) << "},\"notes\":[";
  std::vector<std::string> notes = in.notes;
  notes.insert(notes.end(), r.notes.begin(), r.notes.end());
  for (std::size_t i = 0; i < notes.size(); ++i) o << (i ? "," : "") << json_quote(notes[i]);
  o << "]}";
  return o.str();
}

std::string estimate_text(const EstimateReport& r, const ReadResult& in, const RunInfo& info, bool verbose) {
  std::ostringstream o;
  const int d = r.significant_digits();
  if (verbose) {
    o << "matchcount: " << info.file << ": " << in.format << ", " << r.rows << "x" << r.cols << ", " << r.nnz << " entries\n";
    for (const auto& b : r.blocks) {
      o << "matchcount:   block " << b.n << "x" << b.n << " (" << b.nnz << " entries): ";
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
      o << "matchcount: warning: heavy tail in the " << b.n << "x" << b.n << " block: " << heavy_tail_reason(b)
        << "; the error bar is not reliable (more samples or scaling+ help)\n";
  if (!r.target_met && !r.heavy_tail) o << "matchcount: note: the relative error target was not reached within the limits\n";
  for (const auto& n : r.notes) o << "matchcount: note: " << n << "\n";
  return o.str();
}

}  // namespace matchcount

// The public functions that span the layers: the service loop of the ranks other than 0 runs
// the pipeline's walk shares and the estimator's sample shares.
#include "estimate/sampler_service.hpp"
#include "matchcount/cluster.hpp"
#include "pipeline/share_walks.hpp"

namespace matchcount::cluster {

int serve() { return serve_jobs({serve_walks, serve_sampler}); }

}  // namespace matchcount::cluster

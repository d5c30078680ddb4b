// SIGINT and SIGTERM during a count with --checkpoint (cli_main.cpp): the first asks the count
// to save and stop, a second one exits at once.
#pragma once

#include "matchcount/checkpoint.hpp"

namespace matchcount::cli {

/// From now on the first SIGINT or SIGTERM asks `checkpoint` to save and stop (within a unit of
/// work, about a second); a second one exits at once with 128 + its number (the last periodic
/// save stands). The same signal sent again by the same process within half a second is the
/// first one twice: GNU timeout (without --foreground) and `kill 0` in a script signal the
/// command and then its whole process group, and the save must not be lost to that echo.
void stop_on_signals(Checkpoint* checkpoint);

}  // namespace matchcount::cli

// Private to the cluster stage: who the other ranks of an MPI job are (host name, process id),
// so that rank 0 can tell a rank that is gone from one that is busy and say which it lost. A
// rank killed by a signal or a crash otherwise ends the job with the launcher's banner only,
// and rank 0, waiting for the lost rank's units, is killed before it saves its checkpoint.
#pragma once

#include <string>

namespace matchcount::cluster::peers {

/// Start-up (cluster::init), in a job of several ranks: the others send rank 0 their host
/// name, process id and process start time; rank 0 keeps them and handles SIGTERM (a launcher
/// ending the job because a rank died) by naming the lost rank before it exits, until a
/// handler of the program's own (a checkpoint's) replaces that.
void exchange();
/// Rank 0: whether rank r's process can be checked: it runs on this host and rank 0 sees it
/// (the same process id and start time as it sent).
bool checkable(int r);
/// Rank 0: rank r was found lost before, or it is checkable and its process is gone now (then
/// it is recorded as lost). Async-signal-safe.
bool lost(int r);
/// Rank 0: rank r (not checkable) did not return its units within `seconds` of a stop.
void silent(int r, double seconds);
/// Rank 0: whether any rank was found lost or silent, checking every checkable rank now.
bool any_lost();
/// Rank 0: "MPI rank 2 (pid 1234 on vm) was lost", naming every rank found lost or silent;
/// empty when none was.
std::string describe();
/// Rank 0: the orderly end of the job begins (its ranks exit now), so that a rank gone from
/// now on is no longer taken for lost.
void ending();
/// Rank 0, a rank lost: ends this process with `status`. The launcher that saw the rank die
/// normally ends the job itself (Open MPI sends SIGTERM, then SIGKILL a second later): a
/// SIGTERM or SIGINT now exits at once; if none comes within 2 s, MPI_Abort ends the job, so
/// that ranks waiting for rank 0 do not hang under a launcher that keeps them running.
[[noreturn]] void end_job(int status);
/// Rank 0, a rank lost and no checkpoint to save: one line on stderr (which ranks were lost;
/// --checkpoint would have saved the progress), then end_job(status).
[[noreturn]] void report_and_end(int status);

}  // namespace matchcount::cluster::peers

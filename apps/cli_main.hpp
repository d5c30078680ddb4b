// The matchcount program as a function (apps/cli_main.cpp), for the executables that run it.
#pragma once

/// Everything main() does: joins an MPI job when started as a rank (ranks other than 0 serve
/// rank 0), then parses the arguments and counts. Returns the exit status.
int cli_main(int argc, char** argv);

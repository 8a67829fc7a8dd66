// The start that spraylab-switch's and spraylab-gen's run() share.
#pragma once

namespace spraylab::net {

// Starts EAL from the front of argv, then sends SIGINT and SIGTERM to `on_signal` (from here a
// signal stops the program cleanly, even during its start-up), and leaves argc/argv holding the
// program's own options with argv[0] = `program` (CLI11 reads argv[0] as the program's name).
// Returns false, having said why on stderr, when EAL does not start.
bool start_eal(int& argc, char**& argv, const char* program, void (*on_signal)(int));

}  // namespace spraylab::net

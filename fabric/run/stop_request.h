// A request to stop the run in progress, from a signal handler: the same in every mode. The
// emulated fabric checks it at its wall-clock checks (emu/run_watch.h), the namespaced runner
// between its waits; `spraylab` ends by the signal once it has cleaned up (cli/spraylab_main.cpp).
#pragma once

#include <signal.h>

namespace spraylab::fabric {

// Asks the run in progress (and any later one in this process) to stop at its next wall-clock
// check, as gen::StopReason::kSignal: `spraylab run`'s SIGINT and SIGTERM handler calls it, so it
// is async-signal-safe (stores to lock-free atomics). `signal`: the one that asked, which the
// process ends by once it has cleaned up (stop_signal(); 0 when none did).
void request_stop(int signal = 0);
bool stop_requested();
int stop_signal();

// Installs `sa` for `signal` and saves the handler it replaces in `old`, unless that handler is
// SIG_IGN: a shell starts a script's background jobs (`&`, `trap '' INT`) with SIGINT ignored so
// that the terminal's Ctrl-C is not theirs, and it stays ignored.
void catch_unless_ignored(int signal, const struct sigaction& sa, struct sigaction& old);

}  // namespace spraylab::fabric

// Running an experiment k times slower than written, the same way in every mode that runs in real
// time: the in-process fabric (on the struct) and the namespaced one (as settings of the file its
// processes read). Every rate is divided by k and every time constant multiplied by k — link
// delays, the retransmission timeout, the queue sample period, the duration, the times and rates
// of link events — so the experiment keeps its shape in packets (buffers and bandwidth-delay
// products alike) while the machine keeps up. Virtual time always runs the experiment as written.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "conf/experiment.h"

namespace spraylab::fabric {

// k for running `e` with its fastest link at `rate_bps`: fastest / rate_bps when above 1, else 1
// (a machine that keeps up with the experiment runs it as written; rate_bps <= 0 means so too).
double slowdown_factor(const conf::Experiment& e, double rate_bps);

// `e` k times slower (the struct; k <= 1 leaves it as it is).
void slow_down(conf::Experiment* e, double k);

// The same change as experiment-file settings (key path, value), in the order slow_down makes
// them: applying them to the file and loading it gives what slow_down gives the loaded file.
std::vector<std::pair<std::string, std::string>> slow_down_settings(const conf::Experiment& e,
                                                                    double k);

}  // namespace spraylab::fabric

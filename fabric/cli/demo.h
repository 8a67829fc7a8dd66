#pragma once

namespace spraylab::fabric {

// `spraylab demo`: a 432-host fat tree and an MRLS of the same size side by side, as topologies.
int run_demo();

}  // namespace spraylab::fabric

#pragma once

namespace spraylab::fabric {

// `spraylab demo`: the quick start's main job on its embedded default.
int run_demo();

}  // namespace spraylab::fabric

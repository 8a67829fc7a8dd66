// Where this program's source tree is, for commands that read or name files of the repository
// they were built from (build/fabric/spraylab sits two folders below it).
#pragma once

#include <filesystem>
#include <optional>

namespace spraylab::fabric {

// The nearest folder above this program's own file (/proc/self/exe) that holds `relative`;
// nullopt when none does (an installed program).
std::optional<std::filesystem::path> ancestor_of_binary_with(const std::filesystem::path& relative);

// Where `relative` (conf/experiments) is for this program: the source tree it was built from
// (ancestor_of_binary_with), else an installed program's data folder, <bin>/../share/spraylab
// (`meson install` puts conf/ there); nullopt when neither holds it.
std::optional<std::filesystem::path> data_root_with(const std::filesystem::path& relative);

}  // namespace spraylab::fabric

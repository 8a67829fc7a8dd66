// Where this program's source tree is, for commands that read or name files of the repository
// they were built from (build/fabric/spraylab sits two folders below it).
#pragma once

#include <filesystem>
#include <optional>

namespace spraylab::fabric {

// The nearest folder above this program's own file (/proc/self/exe) that holds `relative`;
// nullopt when none does (an installed program).
std::optional<std::filesystem::path> ancestor_of_binary_with(const std::filesystem::path& relative);

}  // namespace spraylab::fabric

#include "fabric/run/source_tree.h"

namespace spraylab::fabric {

std::optional<std::filesystem::path> ancestor_of_binary_with(
    const std::filesystem::path& relative) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::exists(dir / relative, error)) return dir;
  }
  return std::nullopt;
}

std::optional<std::filesystem::path> data_root_with(const std::filesystem::path& relative) {
  namespace fs = std::filesystem;
  if (auto tree = ancestor_of_binary_with(relative)) return tree;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const fs::path share = exe.parent_path().parent_path() / "share" / "spraylab";
  if (fs::exists(share / relative, error)) return share;
  return std::nullopt;
}

}  // namespace spraylab::fabric

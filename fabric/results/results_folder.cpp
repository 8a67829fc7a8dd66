#include "fabric/results/results_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric/results/result_files.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

// Staging folders (and, where the file system cannot exchange two folders, the earlier folder
// on its way out) are named .<base>.spraylab-<pid>-XXXXXX beside the target: hidden, never a
// variant's name, and the pid tells a person whose it was.
constexpr std::string_view kTemporaryInfix = ".spraylab-";

constexpr const char* kMarkerText =
    "Written by `spraylab run`. The next run into this folder replaces it whole "
    "(docs/runner.md).\n";

// "a/b/" -> "a/b"; "/" and "" stay.
std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

fs::path parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

bool holds_marker(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(fs::symlink_status(dir / ResultsFolder::kMarker, error));
}

bool is_empty_folder(const fs::path& dir) {
  std::error_code error;
  return fs::is_empty(dir, error) && !error;
}

// `inner` is `outer` or below it (both absolute and normal).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // the trailing "" of "/a/"
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// A fresh folder .<base>.spraylab-<pid>-XXXXXX in `parent`.
std::string make_temporary(const fs::path& parent, const std::string& base,
                           const std::string& label) {
  std::string name =
      (parent / fmt::format(".{}{}{}-XXXXXX", base, kTemporaryInfix, getpid())).string();
  if (mkdtemp(name.data()) == nullptr) {
    throw std::runtime_error(fmt::format("{}: cannot create a folder in {}: {}", label,
                                         parent.string(), std::strerror(errno)));
  }
  return name;
}

// The marker of a folder, open and locked (flock) while its run lives: the kernel drops the lock
// when the process ends however it ends, so a lock taken later shows the run is gone (pids do
// not: another pid namespace may share the folder). -1 if it cannot be opened or locked.
int lock_marker(const fs::path& dir, bool wait) {
  const int fd = ::open((dir / ResultsFolder::kMarker).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Temporary folders of `base` that hold the marker (so are ours) and whose run is gone (a
// killed run's staging folder), each with its marker locked (the caller's now); newest first.
// Anything else is left alone.
std::vector<std::pair<std::string, int>> take_leftovers(const fs::path& parent,
                                                        const std::string& base) {
  const std::string prefix = "." + base + std::string(kTemporaryInfix);
  std::vector<std::pair<fs::file_time_type, std::pair<std::string, int>>> found;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(parent, error)) {
    if (!entry.path().filename().string().starts_with(prefix)) continue;
    if (!holds_marker(entry.path())) continue;
    const int fd = lock_marker(entry.path(), /*wait=*/false);
    if (fd < 0) continue;  // its run still runs
    const fs::file_time_type written = fs::last_write_time(entry.path(), error);
    found.push_back({written, {entry.path().string(), fd}});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::pair<std::string, int>> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

// "" or, when `dir` holds results folders of earlier runs (`make demo` wrote
// results/demo/{virtual,inprocess} before issue 43), a sentence naming them.
std::string nested_results_hint(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_directory(error) && holds_marker(entry.path())) {
      names.push_back(entry.path().filename().string());
    }
  }
  if (names.empty()) return "";
  std::sort(names.begin(), names.end());
  return fmt::format(" (it holds earlier runs' results folders: {}; move or remove them)",
                     fmt::join(names, ", "));
}

}  // namespace

void ResultsFolder::check(const std::string& target, const std::string& label) {
  auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(fmt::format("{}: {}", label, why));
  };
  const std::string path = without_trailing_slashes(target);
  const std::string base = fs::path(path).filename().string();
  if (path.empty() || path == "/" || base == "." || base == "..") {
    refuse(
        "names no folder of its own; results replace their folder whole, so name one "
        "(e.g. results/x)");
  }
  std::error_code error;
  const fs::path here = fs::current_path(error);
  const fs::path full = fs::weakly_canonical(fs::absolute(path), error);
  if (!error && is_within(here, full)) {
    refuse(fmt::format(
        "is the working folder or a folder above it ({}); results replace their folder whole, "
        "so name a folder of their own",
        full.string()));
  }
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) {
    if (fs::is_symlink(fs::symlink_status(path, error))) refuse("is a symbolic link to nothing");
    // It is made at the end: the nearest folder above it that exists must be a writable folder
    // (-n said nothing of `afile/sub`, and the run failed at its end with exit 1).
    fs::path above = fs::absolute(path, error).parent_path();
    while (!above.empty() && !fs::exists(fs::symlink_status(above, error)) &&
           above != above.root_path()) {
      above = above.parent_path();
    }
    if (!fs::is_directory(above, error)) {
      refuse(fmt::format("cannot be made: {} is not a folder", above.string()));
    }
    if (::access(above.c_str(), W_OK) != 0) {
      refuse(fmt::format("cannot be made: the folder {} is not writable", above.string()));
    }
    return;
  }
  if (!fs::is_directory(status)) refuse("exists and is not a folder");
  if (!is_empty_folder(path) && !holds_marker(path)) {
    refuse(fmt::format(
        "the folder holds files and is not a spraylab results folder (it has no {}), so a run "
        "will not replace it; name another folder, or empty this one yourself{}",
        kMarker, nested_results_hint(path)));
  }
}

ResultsFolder::ResultsFolder(const std::string& target, const std::string& label,
                             bool adopt_leftovers)
    : target_(without_trailing_slashes(target)), label_(label) {
  check(target, label);
  std::error_code error;
  // A link to a folder: the results go where it points, as the kernel would write them.
  if (fs::is_symlink(fs::symlink_status(target_, error))) {
    target_ = fs::canonical(target_).string();
  }
  const fs::path parent = parent_of(target_);
  fs::create_directories(parent, error);
  if (error) {
    throw std::runtime_error(
        fmt::format("{}: cannot create {}: {}", label, parent.string(), error.message()));
  }
  const std::string base = fs::path(target_).filename().string();
  leftovers_ = take_leftovers(parent, base);
  if (!adopt_leftovers) remove_leftovers();
  staging_ = make_temporary(parent, base, label);
  try {
    write_file((fs::path(staging_) / kMarker).string(), kMarkerText);
    lock_fd_ = lock_marker(staging_, /*wait=*/true);  // never contended: the folder is new
    if (lock_fd_ < 0) {
      throw std::runtime_error(
          fmt::format("{}: cannot lock {}/{}: {}", label, staging_, kMarker, std::strerror(errno)));
    }
  } catch (...) {
    fs::remove_all(staging_, error);  // no destructor runs for a constructor that throws
    for (auto& [path, fd] : leftovers_) ::close(fd);  // left for the next run
    throw;
  }
}

ResultsFolder::~ResultsFolder() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
  // Committed, this run's folder holds whatever it took from the killed runs' folders; else
  // they stay for the next --resume (their locks drop with the descriptors).
  if (committed_) {
    remove_leftovers();
  } else {
    for (auto& l : leftovers_) ::close(l.second);
  }
}

std::vector<std::string> ResultsFolder::leftovers() const {
  std::vector<std::string> out;
  for (const auto& l : leftovers_) out.push_back(l.first);
  return out;
}

void ResultsFolder::remove_leftovers() {
  std::error_code ignored;
  for (auto& [path, fd] : leftovers_) {
    fs::remove_all(path, ignored);
    ::close(fd);
  }
  leftovers_.clear();
}

void ResultsFolder::commit(Swap swap) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target_, error);
  if (!fs::exists(status)) {
    if (std::rename(staging_.c_str(), target_.c_str()) != 0) {
      throw std::runtime_error(fmt::format("{}: cannot move {} to {}: {}", label_, staging_,
                                           target_, std::strerror(errno)));
    }
    committed_ = true;
    return;
  }
  // It was ours (or empty) when the run started; someone may have changed it since.
  if (!fs::is_directory(status) || (!is_empty_folder(target_) && !holds_marker(target_))) {
    committed_ = true;  // keep the results where they are
    throw std::runtime_error(fmt::format(
        "{}: {} changed during the run and is no longer a spraylab results folder; this run's "
        "results are in {}",
        label_, target_, staging_));
  }
  std::string earlier = staging_;  // after the exchange, the staging name holds the earlier run
  const bool exchanged =
      swap == Swap::kExchange &&
      renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0;
  if (!exchanged) {
    if (swap == Swap::kExchange && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
      throw std::runtime_error(fmt::format("{}: cannot put {} in place of {}: {}", label_, staging_,
                                           target_, std::strerror(errno)));
    }
    // No exchange on this file system: two renames, the earlier folder first out of the way.
    const fs::path parent = parent_of(target_);
    earlier = make_temporary(parent, fs::path(target_).filename().string(), label_);
    if (std::rename(target_.c_str(), earlier.c_str()) != 0 ||
        std::rename(staging_.c_str(), target_.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::rename(earlier.c_str(), target_.c_str());  // put the earlier one back if it moved
      fs::remove(earlier, error);
      throw std::runtime_error(
          fmt::format("{}: cannot put {} in place of {}: {}", label_, staging_, target_, why));
    }
  }
  committed_ = true;
  fs::remove_all(earlier, error);  // the earlier run's results, only now
}

std::string ResultsFolder::shown(const std::string& text) const {
  std::string out = text;
  for (size_t at = out.find(staging_); at != std::string::npos;
       at = out.find(staging_, at + target_.size())) {
    out.replace(at, staging_.size(), target_);
  }
  return out;
}

}  // namespace spraylab::fabric

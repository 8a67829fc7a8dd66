// The folder one `spraylab run` writes, and how it replaces an earlier run's (docs/runner.md,
// "Where results go"). Everything is written into a staging folder beside the target, which
// takes the target's place only when the run has written everything; the earlier folder is
// removed only then. A run that fails half way leaves the earlier results as they were, and a
// run with fewer variants leaves none of the earlier run's behind. Only folders spraylab made —
// they hold a marker file — are ever replaced or removed.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace spraylab::fabric {

class ResultsFolder {
 public:
  // The marker every results folder holds; a folder without it is never replaced.
  static constexpr const char* kMarker = ".spraylab-results";

  // Throws std::invalid_argument (naming `label`, e.g. "--out x") when `target` may not receive
  // results: it names '.', '..' or '/', the working folder or a folder above it, something that
  // is not a folder, or a folder that holds files and no marker. Writes nothing.
  static void check(const std::string& target, const std::string& label);

  // check(), then creates the staging folder (with the marker, locked while this object lives)
  // beside `target` and removes the staging folders that killed runs left there (their marker's
  // lock is free). With `adopt_leftovers` (--resume) those folders are kept instead, locked, as
  // leftovers(): a run killed outright (SIGKILL, power, a session's end) wrote each variant it
  // completed there, and --resume takes them; they are removed when this run commits or ends.
  // Throws std::runtime_error when it cannot.
  ResultsFolder(const std::string& target, const std::string& label, bool adopt_leftovers = false);
  ~ResultsFolder();  // removes the staging folder unless commit() ran, and the leftovers
  ResultsFolder(const ResultsFolder&) = delete;
  ResultsFolder& operator=(const ResultsFolder&) = delete;

  const std::string& staging() const { return staging_; }  // write the results here
  // Killed runs' staging folders, newest first (adopt_leftovers only).
  std::vector<std::string> leftovers() const;

  // The staging folder takes the target's place (one atomic exchange where the file system
  // allows it), then the earlier folder is removed. Throws std::runtime_error, leaving the
  // earlier folder in place, if the target changed meanwhile into something not ours.
  // kTwoRenames is what commit() falls back to where the file system cannot exchange two
  // folders (the target is briefly absent); tests choose it to cover that path.
  enum class Swap { kExchange, kTwoRenames };
  void commit(Swap swap = Swap::kExchange);

  // `text` with the staging folder's path written as the target's, for messages.
  std::string shown(const std::string& text) const;

 private:
  std::string target_;  // as given, a symlink resolved
  std::string label_;
  std::string staging_;
  bool committed_ = false;
  int lock_fd_ = -1;  // the staging marker, locked while this run lives
  std::vector<std::pair<std::string, int>> leftovers_;  // a killed run's folder, its marker locked

  void remove_leftovers();
};

}  // namespace spraylab::fabric

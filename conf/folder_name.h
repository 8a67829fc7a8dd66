// A user's string that becomes one folder of a path: the experiment's `name` (results/<name>)
// and a variant's name (<out>/<variant>). Such a name must stay one folder inside its parent —
// no '/', no '.' or '..', no NUL that would cut the path short — so a name never writes outside
// the results folder the tool creates, nor hides its folder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace spraylab::conf {

// What keeps `name` from being one folder name, as a phrase ("contains '/'", "starts with '.'",
// "is empty", "contains the control character \x00", "is longer than 255 bytes"), or nothing.
std::optional<std::string> folder_name_problem(std::string_view name);

// `name` with non-printable bytes written as \xNN, for error messages.
std::string printable(std::string_view name);

}  // namespace spraylab::conf

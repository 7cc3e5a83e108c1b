// Reading a file the user named, whole, with located errors: a missing file, a directory or an
// unreadable file is an InputError naming the path and what was expected ("platform file", ...).
#pragma once
#include <string>

namespace tpsim {

std::string read_input_file(const std::string& path, const std::string& what = "file");

}  // namespace tpsim

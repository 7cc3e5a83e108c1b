// Files and child commands, POSIX only: writing an output file (or failing with its name),
// reading a small one, and running `nvidia-smi ...` to capture its output.
#pragma once
#include <optional>
#include <string>

namespace tpsim::calib {

// Writes (replaces) the file; throws RunError `cannot write <path>: <reason>`.
void write_text_file(const std::string& path, const std::string& text);
// Appends; throws RunError like write_text_file.
void append_text_file(const std::string& path, const std::string& text);
// The file's text, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

// Full path of an executable found on PATH, or nullopt.
std::optional<std::string> find_in_path(const std::string& program);

// Runs `command` through /bin/sh with stderr folded into stdout; nullopt unless it exits 0.
std::optional<std::string> run_command(const std::string& command);

}  // namespace tpsim::calib

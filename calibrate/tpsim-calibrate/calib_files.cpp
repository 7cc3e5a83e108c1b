#include "tpsim-calibrate/calib_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

void write_mode(const std::string& path, const std::string& text, std::ios::openmode mode) {
  std::ofstream out(path, mode);
  if (!out) throw RunError("cannot write " + path + ": " + std::strerror(errno));
  out << text;
  out.close();
  if (!out) throw RunError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

void write_text_file(const std::string& path, const std::string& text) { write_mode(path, text, std::ios::out | std::ios::trunc); }

void append_text_file(const std::string& path, const std::string& text) { write_mode(path, text, std::ios::out | std::ios::app); }

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::optional<std::string> run_command(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string output;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return output;
}

}  // namespace tpsim::calib

// A scratch folder for this test process, removed at exit: tests that hand a parser a path
// write their files here. One folder per process id, so CTest's parallel runs (one process
// per test case) never read each other's files.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace tpsim::test {

inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    fs::path d = fs::temp_directory_path() / ("tpsim-test-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

}  // namespace tpsim::test

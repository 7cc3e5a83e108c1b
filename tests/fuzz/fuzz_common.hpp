// Shared helpers of the libFuzzer targets. Each target feeds one user-facing parser with
// arbitrary bytes. A located `InputError` or a `ValueError` is the parser doing its job; any
// other exception, a crash, a leak, undefined behaviour or a hang is a finding (libFuzzer
// stops and writes the input to an artifact file).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "../scratch_dir.hpp"
#include "util/error.hpp"

namespace tpsim::fuzz {

using test::scratch_dir;  // files written there are what the parsers read: most take a path

inline std::string write_file(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

inline std::string write_scratch(const std::string& name, const uint8_t* data, size_t size) {
  return write_file(scratch_dir() / name, data, size);
}

// Runs `body`; the two exceptions that mean "bad input, reported" are swallowed, anything
// else escapes and libFuzzer reports it as a crash.
template <class F>
void accept_input_errors(F&& body) {
  try {
    body();
  } catch (const InputError&) {
  } catch (const ValueError&) {
  }
}

// A broken invariant that is not an exception (a negative time, a file tpsim wrote that it
// cannot read back): print it and abort so libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "tpsim fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace tpsim::fuzz

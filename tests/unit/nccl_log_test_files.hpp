// Helpers the nccl-tests reader's tests share: a file of the source tree, and the message a log's
// parse throws ("" when it parses).
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fit/nccl_log.hpp"
#include "util/error.hpp"

namespace tpsim::test {

inline std::string slurp(const std::string& relative) {
  const std::string path = std::string(TPSIM_SOURCE_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string error_of(const std::string& text, const std::string& file, const fit::NcclReadOptions& options = {}) {
  try {
    fit::parse_nccl_log(text, file, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tpsim::test

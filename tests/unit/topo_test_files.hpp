// Helpers the topology-import tests share: a matrix from tests/data/topo/, and the message a
// text's parse throws ("no error" when it parses).
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "topo/topo_matrix.hpp"
#include "util/error.hpp"

namespace tpsim::test {

inline std::string read_topo_text(const std::string& name) {
  std::ifstream in(std::string(TPSIM_SOURCE_DIR "/tests/data/topo/") + name, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open tests/data/topo/" << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string topo_parse_error(const std::string& text) {
  try {
    parse_topo_matrix(text, "topo.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace tpsim::test

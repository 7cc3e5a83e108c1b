#include "text_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error.hpp"

namespace tpsim {

std::string read_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError({path}, "no such " + what);
  if (std::filesystem::is_directory(path, ec)) throw InputError({path}, "is a directory, not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path}, "cannot open " + what);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tpsim

// The machine a recorded nccl-tests log ran on, from the `manifest.yaml` beside it
// (calibrate/recorded/manifest.yaml: `logs: [{log, platform, gpus}]`), so that `tpsim fit` can
// simulate on the log's own platform without being told.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tpsim {

struct RecordedMachine {
  std::string manifest;  // the manifest file that names the log
  std::string platform;  // path to the platform XML, as it resolves from the working folder
  std::vector<int> gpus;
};

// The manifest entry for `log_path`, or nullopt when the log's folder has no manifest.yaml or
// it does not list the log. A manifest that does not parse is an InputError located in it.
// `platform` is tried as written (relative to the working folder), then relative to the
// project root two folders above the manifest (calibrate/recorded/); nullopt when neither exists.
std::optional<RecordedMachine> find_recorded_machine(const std::string& log_path);

}  // namespace tpsim

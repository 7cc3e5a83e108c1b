// tpsim-calibrate: argv -> options -> one measuring run -> exit status. The only catch-all.
#include <iostream>

#include "tpsim-calibrate/calib_error.hpp"
#include "tpsim-calibrate/calib_options.hpp"
#include "tpsim-calibrate/calib_run.hpp"

int main(int argc, char** argv) {
  using namespace tpsim::calib;
  const ParseResult parsed = parse_command_line(argc, argv, std::cout, std::cerr);
  if (!parsed.run) return parsed.exit_code;
  try {
    return run_calibration(parsed.options);
  } catch (const UsageError& e) {
    std::cerr << error_line(e.what()) << "\n";
    return EXIT_USAGE;
  } catch (const NoDeviceError& e) {
    std::cerr << error_line(e.what()) << "\n";
    return EXIT_NO_DEVICE;
  } catch (const std::exception& e) {
    std::cerr << error_line(e.what()) << "\n";
    return EXIT_FAILURE_RUN;
  }
}

// Files that hold several nccl-tests runs one after another, as a script that runs each *_perf
// binary and appends its output writes them: each run opens with `# Collective test starting: X`
// (nccl-tests 2.14 and later), after its `# nccl-tests version` line, or where the file names the next
// binary after a run's table (a shell prompt running it, a wrapper's banner). Internal to the fit library.
#pragma once
#include <optional>
#include <string>

#include "util/nccl_terms.hpp"

namespace tpsim::fit {

// The text with every run but the one of `op` blanked line for line (each line keeps its number,
// for located errors); what comes before the first run (a command line, NCCL_* settings) stays.
// Unchanged when the file holds fewer than two runs or all of one collective. Throws InputError when
// the runs are of several collectives and `op` is not given (naming them, at the first run of another
// one), or names none of them, or more than one.
std::string one_collective_run(const std::string& text, const std::string& file, std::optional<CollectiveOp> op);

}  // namespace tpsim::fit

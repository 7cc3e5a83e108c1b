// NCCL's protocols and algorithms as tpsim names them: shared by the fitter (calibrate/fit), the
// calibration reader and the collective model.
#pragma once
#include <array>

namespace tpsim {

enum class Protocol { LL = 0, LL128 = 1, Simple = 2 };
constexpr std::array<Protocol, 3> ALL_PROTOCOLS{Protocol::LL, Protocol::LL128, Protocol::Simple};
const char* protocol_name(Protocol p);

// direct (2 ranks), ring, tree (all-reduce across nodes), NVLS (NVSwitch multicast).
enum class Algorithm { direct, ring, tree, nvls };
constexpr std::array<Algorithm, 4> ALL_ALGORITHMS{Algorithm::direct, Algorithm::ring, Algorithm::tree, Algorithm::nvls};
const char* algorithm_name(Algorithm a);

}  // namespace tpsim

#include "calibration_use.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "config/p2p_policy.hpp"

namespace tpsim {
namespace {

// Whether an entry measured host-staged copies: an SHM entry (staged within a socket), or one with
// a fitted copy rate.
bool fitted_staged(const CollectiveCalibration& e) { return e.path_class == "SHM" || e.host_copy_Bps || e.socket_copy_Bps; }

// The path class an entry's key names (SHM: host-staged over PCIe); the target's when it names none.
// The fitted box's collective as the default latency model sees it: the entry's ranks, nodes and
// hosts; its path class, CPU vendor and transport the target's where the entry does not say (a
// fit without --platform, replayed on its own box, is then compared with that box's default).
LatencyPath fitted_path(const CollectiveCalibration& e, const GroupSummary& target) {
  LatencyPath path{e.nranks, target.worst_class, target.staged, e.nodes, PathClass::NVL, target.amd_host, target.transport,
                   before_hopper(target.compute_capability)};
  if (e.path_class == "SHM") path.worst_class = PathClass::PIX, path.staged = true;
  else if (!e.path_class.empty())
    path.worst_class = parse_path_class(e.path_class), path.staged = path.worst_class == PathClass::SYS && fitted_staged(e);
  if (!e.cpu_vendor.empty()) path.amd_host = e.cpu_vendor == "amd";
  if (!e.net_transport.empty()) path.transport = net_transport_of(e.net_transport);
  if (const GpuSpec* gpu = find_gpu_any_name(e.gpu)) path.gdr_flush = before_hopper(gpu->compute_capability);  // the fitted box's GPU
  return path;
}

// An NVLS-tree line's intercept holds its network steps' fill at the sizes it was drawn through: the
// default it is compared with holds it too, on the fitted box's GPUs (nvls_tree_pipeline_s; a fit
// that did not record its sizes is read at its largest chunks). Compared with NVLS-tree's 55 us
// alone, the 2x HGX H100 fit's 215 us intercept read 3.9 x the default and carried 4 x (55 + 320 us)
// to 4 nodes of the same GPUs (5.9% -> 9.8%).
double fitted_nvls_tree_fill_s(const CollectiveCalibration& e, const GroupSummary& t) {
  const GpuSpec* gpu = e.gpu_spec;
  const double port_Bps = gpu && gpu->nvlinks_per_gpu > 0 ? gpu->nvlinks_per_gpu * nvlink_link_rate_Bps(*gpu) : t.port_Bps;
  const double size_B = e.max_size_B > 0 ? e.max_size_B : 16.0 * (1ull << 30);
  // (a network fit's wire rate is its node's NICs: network fits carry to NICs of that rate only)
  return nvls_tree_pipeline_s({size_B, e.nranks, e.nodes, port_Bps, gpu ? gpu->compute_capability : t.compute_capability, e.nccl_version,
                               e.wire_Bps.value_or(t.node_net_Bps), t.nics_per_node});
}

// Whether the target's rings run on wires of the rate the entry's did (within 1%; no recorded rate: they do).
bool same_wire(const CollectiveCalibration& e, const GroupSummary& t) {
  return !e.wire_Bps || std::fabs(t.raw_Bps / *e.wire_Bps - 1) < 0.01;
}

// Whether the target's nodes talk over the transport the entry was fitted on (unknown: they do).
bool same_transport(const CollectiveCalibration& e, const GroupSummary& t) {
  return e.net_transport.empty() || net_transport_of(e.net_transport) == t.transport;
}

// Whether the target's GPUs meet within a node as the entry's did, through NVSwitch or by direct
// links (unknown: they do). A slice of an NVSwitch node and an NV6 board of the same four H100s
// differ in floor (24 us against 17 at -g 4) and in pace.
bool same_fabric(const CollectiveCalibration& e, const GroupSummary& t) {
  return e.nvlink_fabric.empty() || e.nvlink_fabric == t.nvlink_fabric;
}

std::string gbps(double bps) { return fmt::format("{:.3g} GB/s", bps / 1e9); }

// A carried bus bandwidth as the run's note says it: `fraction` of `base`, and the line's own
// fraction where the run's differs (the default latency took the place of the fitted one).
std::string carried_how(double fraction, double line_fraction, const std::string& base, double bus_Bps) {
  return fmt::format(", bus bandwidth {:.3f} of {}{} = {}", fraction, base,
                     fraction != line_fraction ? fmt::format(" (the line's {:.3f} with the default latency in place of its own, through "
                                                             "its time at its largest measured size)",
                                                             line_fraction)
                                               : "",
                     gbps(bus_Bps));
}

// A host-staged target and an entry that measured the pace of host copies: the line's bus
// bandwidth, relative to its Simple line, times the target's staged rate with the fitted copy
// rates (host_staging.hpp), which on the fitted box is the Simple line itself. Sets c.bus_bw_Bps
// and says how; "" (c untouched) when the entry has no copy rate or the target is not staged.
std::string staged_bus_bw(const CollectiveCalibration& e, Protocol p, const GroupSummary& t, const ProtocolFit& f, LineCosts& c) {
  const auto& simple = e.protocols[static_cast<int>(Protocol::Simple)];
  if (!t.staged_edge || !(e.host_copy_Bps || e.socket_copy_Bps) || !simple || !f.bandwidth_measured) return "";
  StagingRates r = t.staging;
  if (!r.host_copy_given) r.host_copy_Bps = e.host_copy_Bps.value_or(r.host_copy_Bps);
  if (!r.socket_copy_given) r.socket_copy_Bps = e.socket_copy_Bps.value_or(r.socket_copy_Bps);
  const double rate = staged_rate_Bps(*t.staged_edge, r) * (t.staged_Bps / staged_rate_Bps(*t.staged_edge, t.staging));
  c.bus_bw_Bps = f.bus_bw_Bps / simple->bus_bw_Bps * rate;
  return fmt::format(", bus bandwidth {:.3f} of the staged rate {} (host copy {}{}, {} fitted{}) = {}", f.bus_bw_Bps / simple->bus_bw_Bps,
                     gbps(rate), gbps(r.host_copy_Bps), t.staged_edge->crosses_socket ? ", socket copy " + gbps(r.socket_copy_Bps) : "",
                     e.host_copy_Bps && e.socket_copy_Bps ? "both" : e.host_copy_Bps ? "host copy" : "socket copy",
                     p == Protocol::Simple ? "" : ", relative to the Simple line", gbps(c.bus_bw_Bps));
}

// A line's share of the wire when the run takes the default latency in place of the fitted one (not
// measured, or another GPU's): the share that keeps the line's time at the largest size it measured
// on the fitted box, S f / (L + S f / B - L_default), so that the bandwidth fitted together with the
// latency is not paired with another. The line's own share when the entry records no size or the
// default latency is not below the line's time there.
double wire_fraction_with_default_latency(const CollectiveCalibration& e, const ProtocolFit& f, double fitted_latency_s,
                                          double default_latency_s) {
  if (!(e.max_size_B > 0) || !e.wire_Bps) return *f.wire_fraction;
  const double bus_B = e.max_size_B * bus_factor(e.op, e.nranks);
  const double time_s = fitted_latency_s + bus_B / f.bus_bw_Bps;
  if (!(time_s > default_latency_s)) return *f.wire_fraction;
  return bus_B / (time_s - default_latency_s) / *e.wire_Bps;
}

// What the run says of a line's latency: carried by its ratio, or why it is the default.
std::string latency_how(bool carried, bool measured, double ratio, Algorithm a, CollectiveOp op, const CollectiveCalibration& e,
                        const GroupSummary& t) {
  if (carried)
    return fmt::format("latency fitted x{:.2f} of the default {} {} at {} ranks", ratio, algorithm_name(a), collective_op_name(op), t.nranks);
  if (measured && !same_fabric(e, t))
    return fmt::format("latency default (fitted over NVLink {}, the target's is {}: a latency is its links' too)", e.nvlink_fabric,
                       t.nvlink_fabric.empty() ? "not NVLink" : t.nvlink_fabric);
  if (measured) return fmt::format("latency default (fitted on {}, not {}: a latency is the GPU's and its stack's)", e.gpu, t.gpu_model);
  return "latency default (not measured)";
}

}  // namespace

bool same_gpu(const std::string& a, const GpuSpec* a_spec, const std::string& b, const GpuSpec* b_spec) {
  if (a.empty() || b.empty()) return true;  // unknown: nothing says otherwise
  if (a_spec && b_spec) return a_spec == b_spec;
  return normalise_gpu_name(a) == normalise_gpu_name(b);
}

bool same_gpu(const std::string& a, const std::string& b) { return same_gpu(a, find_gpu_any_name(a), b, find_gpu_any_name(b)); }

std::optional<std::string> below_measured_sizes(const CollectiveCalibration& e, double size_B) {
  if (e.min_size_B <= 0 || size_B >= e.min_size_B) return std::nullopt;
  const double bus_B = e.min_size_B * bus_factor(e.op, e.nranks);
  double latency_s = 0, bw_Bps = 0;
  if (const CollectivePiece* piece = e.piece_at(e.min_size_B)) {
    latency_s = piece->latency_s, bw_Bps = piece->bus_bw_Bps;
  } else {
    double best = INFINITY;
    for (const auto& f : e.protocols)
      if (f && f->fitted && f->latency_s + bus_B / f->bus_bw_Bps < best)
        best = f->latency_s + bus_B / f->bus_bw_Bps, latency_s = f->latency_s, bw_Bps = f->bus_bw_Bps;
  }
  if (bw_Bps <= 0) return std::nullopt;
  const double share = bus_B / bw_Bps / (latency_s + bus_B / bw_Bps);
  if (share < FLAT_FLOOR_SHARE) return std::nullopt;
  return fmt::format("{} measured from {:.0f} B, where its fitted curve still rises ({:.0f}% of the time is bandwidth): below that "
                     "size the defaults apply",
                     e.source, e.min_size_B, share * 100);
}

std::optional<std::string> above_measured_sizes(const CollectiveCalibration& e, Protocol p, double size_B, double bus_factor,
                                                double default_bus_Bps, LineCosts& c) {
  if (e.max_size_B <= 0 || size_B <= e.max_size_B || e.nodes > 1 || !c.calibrated || default_bus_Bps <= c.bus_bw_Bps)
    return std::nullopt;
  const double max_bus_B = e.max_size_B * bus_factor;
  const std::string how = fmt::format("{} line of {}, measured up to {:.0f} B: above it the extra bytes at the default {} bus "
                                      "bandwidth, not the line's {}",
                                      protocol_name(p), e.source, e.max_size_B, gbps(default_bus_Bps), gbps(c.bus_bw_Bps));
  c.latency_s += max_bus_B / c.bus_bw_Bps - max_bus_B / default_bus_Bps;
  c.bus_bw_Bps = default_bus_Bps;
  return how;
}

bool within_envelope(const CollectiveCalibration& e, const GroupSummary& t) {
  return e.nranks == t.nranks && e.nodes == t.nodes && same_wire(e, t) && same_gpu(e.gpu, e.gpu_spec, t.gpu_model, t.gpu_spec) &&
         same_fabric(e, t) && (t.nodes == 1 || same_transport(e, t));
}

LineUse use_line(const CollectiveCalibration& e, Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& t,
                 const LineCosts& fallback, double nodes_scale, int gpus_per_thread, bool algorithm_forced) {
  const ProtocolFit& f = *e.protocols[static_cast<int>(p)];
  const std::string line = fmt::format("{} {} line of {} ({} ranks, {}{})", algorithm_name(f.algorithm), protocol_name(p),
                                       e.source, e.nranks, e.gpu.empty() ? "GPU not recorded" : e.gpu,
                                       reduces_below_link_pace(e.op, e.datatype) ? ", reducing " + e.datatype : "");
  const bool inside = within_envelope(e, t) && e.op == op;
  const double fitted_latency = std::max(0.0, f.latency_s - serial_launch_s(e.gpus_per_thread, e.nccl_version));
  // A network's achieved share of its NICs is the fabric's (RoCE or InfiniBand, GPUDirect or not,
  // the stack's tuning), not the GPUs': it stays on NICs of the rate it measured.
  if (t.worst_class == PathClass::NET && !same_wire(e, t))
    return {fallback, "default", fmt::format("{}: a network fit is not carried to other NICs ({} on the target's rings{})", line,
                                             gbps(t.raw_Bps), ", fitted on " + gbps(*e.wire_Bps))};
  // A host-staged line is the pace of copies through host memory, a P2P line that of the GPUs' own
  // reads and writes: neither says anything of the other, even at the fitted GPUs and rank count. A
  // 4x A100 PCIe fit staged at 5.2 GB/s took the Azure NC A100 v4 box (P2P across SYS) from 24.7% to
  // 31% through the wire rate, 57% through the model's.
  if (fitted_staged(e) != t.staged)
    return {fallback, "default", fmt::format("{}: a {} fit is not carried to {} paths", line, fitted_staged(e) ? "host-staged" : "P2P",
                                             t.staged ? "host-staged" : "P2P")};
  // Nor to another transport of the same rate: EFA's SRD through aws-ofi-nccl, verbs over InfiniBand
  // or RoCE and TCP sockets reach different shares of a NIC (a 2x p5 EFA fit on a 4-node H100
  // InfiniBand cluster of the same 400 GB/s a node: 5.9% -> 21-23%).
  if (t.worst_class == PathClass::NET && !same_transport(e, t))
    return {fallback, "default", fmt::format("{}: a network fit is not carried to another transport (fitted over {}, the target's "
                                             "nodes use {})",
                                             line, e.net_transport, net_transport_names()[static_cast<int>(t.transport)])};
  // A line whose pace is the GPUs' stays within their generation. NVLink's achieved share of its wire is its
  // generation's (the links and the SMs that drive them): an A100 NVLink3 fit's Simple line reaches 0.70-0.78,
  // the held-out V100 NVLink2 mesh 0.87, and carrying the A100 fit there took 16.7% to 20.7% median error.
  // Across nodes LL and LL128 run at rates NCCL sets by generation (tuning.cc llMaxBws, perChMaxRingLL128Bws,
  // perChMaxTreeLL128Bws: Blackwell's twice Hopper's), not the NICs' (Simple's pace, which carries).
  const int fitted_cc = e.gpu_spec ? e.gpu_spec->compute_capability : 0;
  const bool gpus_pace = t.worst_class == PathClass::NVL || (t.worst_class == PathClass::NET && p != Protocol::Simple);
  if (gpus_pace && !inside && fitted_cc && t.compute_capability && fitted_cc / 10 != t.compute_capability / 10)
    return {fallback, "default",
            fmt::format("{}: {} fit is not carried to another GPU generation (fitted on sm_{}, the target is sm_{})", line,
                        t.worst_class == PathClass::NVL ? std::string("an NVLink") : fmt::format("a network {}", protocol_name(p)),
                        fitted_cc, t.compute_capability)};
  if (!e.wire_Bps || !f.wire_fraction) {
    // Absolute numbers: the latency in its ratio to the default model (as with a wire rate below:
    // moving it by hops alone took a fitted 8-rank LL128 intercept of 18.6 us to 3.6 us at 2 ranks,
    // below NCCL's base latency), the bandwidth as measured. Fitted without a platform, the line's
    // algorithm is not known: the target's stands for it (a tree across nodes stays a tree).
    const double lat =
        fitted_latency / default_latency_s(p, a, op, fitted_path(e, t)) * default_latency_s(p, a, op, t.latency_path());
    const std::string how = inside ? "as measured" : fmt::format("absolute {} (the fit has no wire rate) for {} on {} ranks of {}", gbps(f.bus_bw_Bps), collective_op_name(op), t.nranks, t.gpu_model);
    return {{lat, f.bus_bw_Bps, true}, inside ? "applied" : "extrapolated", line + ": " + how};
  }
  // A log that ran under NCCL_ALGO measured that algorithm alone (a ring is a direct exchange on 2 ranks).
  const auto ring_like = [](Algorithm x) { return x == Algorithm::direct ? Algorithm::ring : x; };
  if (e.forced_algorithm && ring_like(*e.forced_algorithm) != ring_like(a))
    return {fallback, "default", fmt::format("{}: not used for {} {} (the log ran under NCCL_ALGO={})", line, algorithm_name(a),
                                             protocol_name(p), algorithm_name(*e.forced_algorithm))};
  // Across nodes a tree and a ring have different bounds (a 2-node tree's bus bandwidth beats its NICs, 1.345 of the wire
  // on a p4de pair): a line stands for the other only on its own box, where NCCL chose by size as it did. So does
  // an NVLS line for the rings and trees of its protocol, and they for it, once the box is run as its log ran: the
  // fit drew one line a protocol through the sizes NCCL ran it at, whatever algorithm its bandwidth suggests (a
  // GCP A3 Mega fit's Simple line, labelled NVLS-tree, lost 8-256 MiB to the faster default tree and replayed
  // them 11-44% fast).
  const bool faithful = inside && f.fitted && e.gpus_per_thread == gpus_per_thread;
  const bool own_run = inside && !algorithm_forced, replay = faithful && own_run;
  // One node's NVLS runs a chunk pipeline whose cost grows with the size in steps (nvls_pipeline_s): a
  // straight line through its sizes has that in its slope and intercept, which mean nothing on another
  // box's sizes and ranks. The DGX H100 fit's NVLS line (67 us + bus bytes / 468 GB/s) took Together's
  // H100 sweep from 1.9% to 27.4% and nccl-tests#290's from 0.3% to 31.6% through the default's ratio.
  if (a == Algorithm::nvls && !faithful)
    return {fallback, "default", fmt::format("{}: an NVLS line replays on the box it measured only (one node's NVLS is a chunk pipeline, "
                                             "not a line: the default's pipeline stands)", line)};
  const bool other_algorithm = t.nodes > 1 && e.nodes > 1 && (f.algorithm == Algorithm::tree) != (a == Algorithm::tree);
  if ((is_nvls(f.algorithm) != is_nvls(a) && !replay) || (other_algorithm && !own_run))
    return {fallback, "default", fmt::format("{}: not used for {} {} (the line ran {})", line, algorithm_name(a), protocol_name(p),
                                             algorithm_name(f.algorithm))};
  LineCosts c = fallback;
  // Standing for another algorithm on its own run, the line keeps its own intercept: the ratio is taken to
  // the target algorithm's default, which it then multiplies back.
  const Algorithm fitted_algorithm = replay ? a : f.algorithm;
  const double line_fill_s = fitted_algorithm == Algorithm::nvls_tree ? fitted_nvls_tree_fill_s(e, t) : 0.0;
  const double default_on_fitted = default_latency_s(p, fitted_algorithm, op, fitted_path(e, t)) + line_fill_s;
  const double ratio = fitted_latency / default_on_fitted;
  // A fitted latency is the GPU's, its links' and its NCCL's (kernels, channels, the intercepts of
  // NCCL's choices by size): on another GPU model it stays the default. Leave-one-box-out over the
  // recorded logs: carrying it from H100 to A100 took 8.8% to 13.3% median error.
  // On the box it measured, run as the log ran, a fitted line is replayed whole, each term as fitted, measured
  // or not: a term the curve did not measure still set where NCCL changed protocol (an 8x B200 log's LL line at
  // 8-32 B, whose fitted bandwidth, not the default, keeps it from winning at 64 B-256 KiB where the log ran
  // another). Where NCCL leaves a protocol is the box's and its release's: another box of the same GPUs (the
  // held-out -g 8 DGX H100 sweep with the one-process DGX H100 fit: 2.5% -> 7.4%) keeps the defaults for them.
  const bool carry_latency = (f.latency_measured || faithful) && same_gpu(e.gpu, e.gpu_spec, t.gpu_model, t.gpu_spec) && same_fabric(e, t);
  // The fitted latency is a straight line's intercept, compared with NCCL's latency alone. On the box
  // it measured, run as the log ran, the line replays as fitted: the default's terms that grow with
  // the size (a Simple tree's chunks stored and forwarded, LL's step synchronisation) are in its slope
  // and intercept already (a 2-node GH200 fit's tree/Simple line, 80.6 us flat, replayed 133-186 us at
  // 1-2 MiB when they were scaled with it). Elsewhere they scale with it: the target's own terms,
  // which the fitted box's range of sizes need not have shown (a DGX H100 fit's LL line, measured at
  // 8 B-2 KiB, below LL's synchronisation).
  if (carry_latency) {
    const double wire_s = latency_steps(a, op, t.nranks) * t.wire_latency_s;
    // (an NVLS-tree line replays its own fill: the default's at the fitted sizes, line_fill_s)
    const double own_fill_s = a == Algorithm::nvls_tree ? line_fill_s : 0.0;
    const double size_terms_s = faithful ? fallback.tree_fill_s + fallback.ll_sync_s + fallback.nvls_pipeline_s - own_fill_s : 0.0;
    c.latency_s = ratio * (fallback.latency_s - size_terms_s - wire_s) + wire_s;
    if (faithful) c.tree_fill_s = 0, c.ll_sync_s = 0, c.nvls_pipeline_s = 0;
  }
  // NVLS's bus factor grows with the ranks (it moves S per rank): carry its share of the wire per byte
  // moved, and its ports' S (1 + 1/N) from the fitted GPUs of a node to the target's (nvls_ranks_factor).
  const double nvls_scale = is_nvls(a) ? bus_factor(op, t.nranks) / bus_factor(op, e.nranks) *
                                             nvls_ranks_factor(op, t.nranks / std::max(1, t.nodes)) /
                                             nvls_ranks_factor(op, e.nranks / std::max(1, e.nodes))
                                       : 1.0;
  const std::string staged_how = staged_bus_bw(e, p, t, f, c);
  const double wire_fraction = carry_latency ? *f.wire_fraction : wire_fraction_with_default_latency(e, f, fitted_latency, default_on_fitted);
  const bool carry_bandwidth = f.bandwidth_measured || faithful;
  // To another box a model fraction carries through the target's default line (its caps, its NVLS
  // and tree bounds, its nodes); a file without one through the wire rate. Within the envelope the
  // line is the box's own, at its own rate whatever algorithm the target runs it as.
  const double model_default_Bps = fallback.bus_bw_Bps / fallback.tree_correction;
  const bool by_model = !inside && f.model_fraction && model_default_Bps > 0;
  const double latency_adjust = wire_fraction / *f.wire_fraction;  // exactly 1 where the fitted latency carries
  const double fraction = by_model ? *f.model_fraction * latency_adjust : wire_fraction * nvls_scale;
  if (carry_bandwidth && staged_how.empty())
    c.bus_bw_Bps = by_model ? fraction * model_default_Bps : wire_fraction * t.raw_Bps * nvls_scale * nodes_scale;
  // NCCL's LL cap bounds a line carried elsewhere; on its own box, run as it ran, the line is what the fit
  // drew through the sizes it labelled LL (an 8x A100 -g 8 fit's LL line, 126 GB/s through 1-2 MiB, was
  // capped at 42 and replayed those sizes 58-114% slow).
  if (p == Protocol::LL && t.nodes == 1 && !faithful) c.bus_bw_Bps = std::min(c.bus_bw_Bps, ll_max_bus_Bps(t.compute_capability));
  std::string how = latency_how(carry_latency, f.latency_measured, ratio, a, op, e, t);
  if (!staged_how.empty())
    how += staged_how;
  else if (!carry_bandwidth)
    how += ", bus bandwidth default (not measured)";
  else if (by_model)
    how += carried_how(fraction, *f.model_fraction,
                       fmt::format("the default {} {} line's {} on the target", algorithm_name(a), protocol_name(p), gbps(model_default_Bps)),
                       c.bus_bw_Bps);
  else
    how += carried_how(fraction, *f.wire_fraction * nvls_scale,
                       fmt::format("the wire rate {}{}", gbps(t.raw_Bps),
                                   nodes_scale != 1.0 ? fmt::format(" x {:.3f} (the default {} bandwidth on {} nodes over that on the fitted {})",
                                                                    nodes_scale, algorithm_name(a), t.nodes, e.nodes)
                                                      : ""),
                       c.bus_bw_Bps);
  // A line that carried nothing (a protocol the log did not run, copied with fitted: false) is the
  // default's: it keeps NCCL's rules for that protocol (LL128 only on NVLink paths), not a calibration's
  // licence to run where NCCL would not (a 4x A100 PCIe fit's LL128 copy ran 256-512 KiB over SYS).
  c.calibrated = carry_latency || carry_bandwidth || !staged_how.empty();
  if (!c.calibrated) return {c, "default", line + ": " + how};
  return {c, inside ? "applied" : "extrapolated", line + ": " + how};
}

}  // namespace tpsim

// `tpsim fit logs/*.log [calib/] [--gemm gemm.csv] [--hbm hbm.csv] [--launch launch.csv] [--platform P.xml --gpus 0-7] -o c.yaml`:
// fits the collective cost model to real nccl-tests logs (and GEMM/HBM/launch measurements)
// and reports each fit's residuals. Directories are searched for *.log, gemm.csv, hbm.csv and
// launch.csv (the layout tpsim-calibrate writes).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include "cmd_common.hpp"
#include "cmd_curve.hpp"
#include "config/gpu_catalog.hpp"
#include "config/p2p_policy.hpp"
#include "fit/calibration_yaml.hpp"
#include "fit/launch_table.hpp"
#include "fit/log_settings.hpp"
#include "model/calibration_use.hpp"
#include "model/collective_model.hpp"
#include "report/writers.hpp"
#include "util/error.hpp"
#include "util/text_file.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {
// Where the box offers NVLS (NVLS-tree across nodes), a fitted line above this bus bandwidth ran it: no ring
// reaches it. Within a node that is what an NVLink ring reaches at most (0.8 of the wire): Blackwell's NVLS
// runs at 0.54 of its port, below the wire rate but above any ring (an 8x B200 sweep's 2-16 GiB: 0.92 of the
// wire). Across nodes the NICs' wire rate, which NVLS-tree's bus bandwidth passes on 2 nodes.
std::optional<double> nvls_above_Bps(const GroupSummary& box) {
  if (!box.nvls_possible && !box.nvls_tree_possible) return std::nullopt;
  if (box.nodes > 1) return box.raw_Bps;
  return default_bus_bw_Bps(Protocol::Simple, Algorithm::ring, CollectiveOp::all_reduce, box.nranks, PathClass::NVL, false, box.raw_Bps,
                            box.compute_capability);
}

// The path class a log measured: several nodes -> NET; else what its comments or name say
// (fit::path_class_named). "" when the log does not say: the fit then applies to any path.
std::string infer_path_class(const std::string& text, const std::string& name, int hosts, int& nodes) {
  std::smatch m;
  nodes = 1;
  const std::string comments = fit::comment_lines(text);
  if (std::regex_search(comments, m, std::regex(R"(nodes:?\s+(\d+))"))) nodes = std::stoi(m[1]);
  // nccl-tests' Rank lines name each rank's host: as many nodes as hosts.
  nodes = std::max(nodes, hosts);
  return nodes > 1 ? "NET" : fit::path_class_named(comments + name);
}

// A flag that stands for a setting the log prints anyway: it is not used, and the fit says so.
std::optional<std::string> flag_not_used(const std::string& printed, const char* flag, const std::string& given, bool differs) {
  if (given.empty() || !differs) return std::nullopt;
  return fmt::format("the log prints {}: {} {} is for logs that do not, and is not used", printed, flag, given);
}

// tpsim's --algorithm name as the algorithm a log ran: nvls is NVLS-tree across nodes.
Algorithm forced_algorithm_of(const std::string& name, int nodes) {
  if (name == "nvls") return nodes > 1 ? Algorithm::nvls_tree : Algorithm::nvls;
  return name == "tree" ? Algorithm::tree : name == "direct" ? Algorithm::direct : Algorithm::ring;
}

// A row with an out-of-place time.
bool timed(const fit::NcclRow& r) { return r.out_of_place.time_us > 0; }

// The log's largest size with an out-of-place time; nullptr when none has one.
const fit::NcclRow* largest_timed_row(const fit::NcclLog& log) {
  const auto row = std::find_if(log.rows.rbegin(), log.rows.rend(), timed);
  return row == log.rows.rend() ? nullptr : &*row;
}

// The log's largest timed size against the box's uncalibrated model (tpsim collective on the
// platform, a process per GPU, NCCL's own choice): how far the measured box sits from the pace its
// links allow, which the calibration then carries to any box it is used on. nullopt for an op the
// model does not run.
std::optional<std::string> largest_size_note(const fit::NcclLog& log, const CollectiveModel& reference, const std::vector<int>& gpus) {
  const fit::NcclRow* timed = largest_timed_row(log);
  if (!timed || !is_swept(log.op)) return std::nullopt;
  const double measured_us = timed->out_of_place.time_us;
  const double modelled_us = reference.plan(log.op, double(timed->size_B), gpus).time_s() * 1e6;
  return fmt::format("at its largest size, {}, the log measured {:.1f} us where this platform's links give {:.1f} us uncalibrated: "
                     "the box runs at {:.2f} x that pace, which a calibration from it carries, as fractions of the default model's rates, "
                     "to the boxes it is used on",
                     format_size(double(timed->size_B)), measured_us, modelled_us, modelled_us / measured_us);
}

// A log with fewer timed sizes than three (two without LL128) protocols' lines need, on a known
// platform of as many GPUs: the algorithm and protocol the platform's defaults run at its largest
// size, the one line such a log can fit (the others keep the defaults); nullopt otherwise.
std::optional<std::pair<Algorithm, Protocol>> short_log_line(const fit::NcclLog& log, const fit::FitOptions& opt,
                                                             const CollectiveModel* reference, const std::vector<int>& gpus) {
  const auto sizes = std::size_t(std::count_if(log.rows.begin(), log.rows.end(), timed));
  if (!reference || opt.forced_protocol || int(gpus.size()) != log.nranks || !is_swept(log.op) ||
      sizes < fit::POINTS_PER_LINE || sizes >= fit::sizes_needed(opt))
    return std::nullopt;
  const CollectivePlan& plan = reference->plan(log.op, double(largest_timed_row(log)->size_B), gpus);
  return std::pair{plan.algorithm, plan.protocol};
}

// A fitted line far beyond what the platform's rings carry (a calibration keeps at most 4 times the wire:
// NVLS and a tree's halved bytes reach past 1) says the platform is not the log's box: refused at the
// log's largest size, rather than written as a calibration that tpsim then cannot read back.
void check_platform_carries(const fit::CollectiveFit& f, const fit::NcclLog& log, const std::string& platform_path) {
  const auto worst = std::max_element(f.protocols.begin(), f.protocols.end(), [](const fit::ProtocolFit& a, const fit::ProtocolFit& b) {
    return a.wire_fraction.value_or(0) < b.wire_fraction.value_or(0);
  });
  if (worst == f.protocols.end() || worst->wire_fraction.value_or(0) <= MAX_WIRE_FRACTION) return;
  const fit::NcclRow* row = largest_timed_row(log);
  throw InputError({log.file, row ? row->line : log.header_line, 0},
                   fmt::format("the log's {} line reaches {:.1f} GB/s of bus bandwidth, {:.1f} times the {:.1f} GB/s the rings of "
                               "{} carry: is it the log's box (its NICs, its links)? Give the platform of the box that ran it",
                               protocol_name(ALL_PROTOCOLS[worst - f.protocols.begin()]), worst->bus_bw_Bps / 1e9,
                               *worst->wire_fraction, f.wire_Bps.value_or(0) / 1e9,
                               platform_path));
}

// The path class of the box's all-reduce ring, as the fit labels its lines.
std::string box_class(const CollectiveModel& reference, const std::vector<int>& gpus) {
  const GroupSummary g = reference.summary(CollectiveOp::all_reduce, gpus);
  return class_key(g.worst_class, g.staged);
}

// A GEMM or HBM table: its path and text ("" and "" when not given).
struct TableText {
  std::string path, text;
};

// The GPU the GEMM and HBM tables were measured on, as tpsim names it: --gpu (`option`, already
// found in the GPU table), else the tables' `# gpu: NAME` lines (which must agree), else "" (a run then
// applies them as measured to whatever GPU it simulates). Says which, when there are tables.
std::string tables_gpu(const GpuSpec* option, const std::vector<TableText>& tables) {
  if (std::all_of(tables.begin(), tables.end(), [](const TableText& t) { return t.path.empty(); })) return "";
  std::string found = option ? option->name : "", from = option ? "--gpu" : "";
  for (const TableText& table : tables) {
    const auto declared = option ? std::nullopt : fit::declared_gpu(table.text);
    if (!declared) continue;
    const Location where{table.path, declared->line, declared->col};
    const GpuSpec* gpu = find_gpu_any_name(declared->name);
    if (!gpu) throw InputError(where, fmt::format("'# gpu:': unknown GPU model '{}'{}", declared->name, gpu_name_hint(declared->name)));
    if (!found.empty() && gpu->name != found)
      throw InputError(where, fmt::format("'# gpu:': {} here, {} in {}: fit the tables of one GPU together", gpu->name, found, from));
    if (found.empty()) found = gpu->name, from = fmt::format("{} line {}", table.path, declared->line);
  }
  std::cout << (found.empty() ? std::string("  note: the GEMM/HBM tables do not say their GPU (a '# gpu: NAME' line, or --gpu): a run "
                                            "applies them as measured to whatever GPU it simulates\n")
                              : fmt::format("  note: the GEMM/HBM tables' GPU: {} ({}); a run on another GPU carries each shape's "
                                            "efficiency through that GPU's rates\n",
                                            found, from));
  return found;
}

}  // namespace

int fit_command(int argc, char** argv) {
  CLI::App app{"Fit tpsim's collective model to nccl-tests logs (and GEMM/HBM measurements)"};
  std::vector<std::string> inputs;
  std::string output, gemm_path, hbm_path, launch_path, path_class, platform_path, gpus_text, op_text, nccl_version,
      net_transport, protocol, algorithm;
  app.add_option("inputs", inputs, "nccl-tests logs, or directories written by tpsim-calibrate");
  app.add_option("-o,--output", output, "calibration YAML to write")->required();
  app.add_option("--gemm", gemm_path, "GEMM CSV (op,m,n,k,dtype,time_us,...)");
  app.add_option("--hbm", hbm_path, "HBM copy CSV (bytes,time_us,copy_GBps)");
  app.add_option("--launch", launch_path, "launch overhead CSV (what,value_us)");
  app.add_option("--path-class", path_class, "path class the logs measured (NVL, PIX, PXB, PHB, SYS, SHM, NET) when they do not say");
  app.add_option("--platform", platform_path, "platform of the measured machine: the path class comes from its routes");
  app.add_option("--gpus", gpus_text, "the GPUs the logs ran on (with --platform), e.g. 0-7");
  std::string json_path;
  CurveOptions curve;
  add_curve_options(app, curve);
  app.add_option("--json", json_path, "write the curve reading as JSON (alpha_us, bus_bw_GBps, knee_B, s_star_B, alpha_star_us, tp2_decode_verdict per log)");
  app.add_option("--op", op_text, "the collective the logs measured, for logs that do not name their *_perf binary (all_reduce, ...)");
  app.add_option("--nccl-version", nccl_version,
                 "the NCCL release the logs ran, for logs that do not print it (e.g. 2.8.3: before 2.9 a thread's GPUs launch as one "
                 "group, before 2.23 AMD hosts run P2P across SYS at any GPU count)");
  app.add_option("--net-transport", net_transport,
                 "rdma | tcp | efa | cxi: how the logs' network steps travelled between nodes (default: a log's NCCL_IB_DISABLE=1 or "
                 "network Socket means tcp, network AWS Libfabric efa, or cxi with aws-ofi-nccl's cxi provider (HPE Slingshot), else "
                 "the platform's net_transport)");
  app.add_option("--protocol", protocol,
                 "LL | LL128 | Simple: the NCCL_PROTO the logs ran with, for logs that do not print it (aws-ofi-nccl sets Simple "
                 "on EFA without in-order 128-byte writes: p4d, p4de)");
  app.add_option("--algorithm", algorithm,
                 "ring | tree | direct | nvls: the NCCL_ALGO the logs ran with, for logs that do not print it");
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  if (!protocol.empty()) check_choice("--protocol", protocol, {"LL", "LL128", "Simple"});
  if (!algorithm.empty()) check_choice("--algorithm", algorithm, {"ring", "tree", "direct", "nvls"});
  if (!path_class.empty()) check_choice("--path-class", path_class, calibration_path_class_names());
  if (const std::string why = algorithm_protocol_conflict(algorithm, protocol.empty() ? "auto" : protocol); !why.empty())
    throw ValueError(fmt::format("--protocol {} with --algorithm nvls: {}", protocol, why));
  if (!net_transport.empty()) check_choice("--net-transport", net_transport, net_transport_names());
  if (!nccl_version.empty() && !nccl_release(nccl_version))
    throw ValueError(fmt::format("--nccl-version must be a NCCL release such as 2.8.3 (got '{}')", nccl_version));
  if (inputs.empty() && gemm_path.empty() && hbm_path.empty() && launch_path.empty())
    throw ValueError("nothing to fit: give nccl-tests logs, a folder tpsim-calibrate wrote, or --gemm, --hbm, --launch");
  if (platform_path.empty() != gpus_text.empty()) throw ValueError("--platform and --gpus go together");
  fit::NcclReadOptions read;
  if (!op_text.empty() && !(read.op = fit::op_from_name(op_text)))
    throw ValueError(fmt::format("--op: '{}' is not an nccl-tests collective (all_reduce, all_gather, reduce_scatter, alltoall, "
                                 "broadcast, reduce, sendrecv, gather, scatter)", op_text));
  check_output_path(output);
  if (!json_path.empty()) check_output_path(json_path);
  const CurveSetup curve_setup = prepare_curve_reading(curve);
  // The measured box, when given: its path class, nodes, GPU and the rings' wire rate per op make
  // the fit carry to other boxes (wire fractions, NVLS lines). It is modelled per log, with the
  // log's NCCL release and P2P setting (NCCL's default P2P level depends on both).
  std::optional<PlatformDesc> platform;
  std::optional<Topology> topo;
  std::unique_ptr<CollectiveModel> reference;
  std::vector<int> gpus;
  if (!platform_path.empty()) {
    gpus = parse_gpu_list(gpus_text);
    platform = load_platform_file(platform_path);
    for (int g : gpus)
      if (!platform->gpu(g)) throw ValueError(fmt::format("GPU {} is not in {}", g, platform_path));
  }
  // Inputs: nccl-tests logs, or folders holding them with tpsim-calibrate's gemm.csv, hbm.csv and
  // launch.csv (tables given by name go with --gemm, --hbm, --launch).
  const std::pair<std::string*, const char*> tables[] = {{&gemm_path, "gemm.csv"}, {&hbm_path, "hbm.csv"}, {&launch_path, "launch.csv"}};
  std::vector<std::string> logs;
  for (const auto& in : inputs) {
    std::error_code ec;
    const std::filesystem::path p(in);
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.path().extension() == ".log") found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      logs.insert(logs.end(), found.begin(), found.end());
      for (auto [path, name] : tables)
        if (std::filesystem::exists(p / name)) {
          if (!path->empty()) throw ValueError(fmt::format("two {} inputs: {} and {}", name, *path, (p / name).string()));
          *path = (p / name).string();
        }
    } else if (p.extension() == ".csv") {
      throw InputError({in}, "a table, not an nccl-tests log: give it with --gemm, --hbm or --launch");
    } else {
      logs.push_back(in);
    }
  }
  fit::CalibrationInputs cal;
  std::vector<FittedLog> fitted;
  std::cout << "# tpsim fit: residuals are relative errors of the fitted time against the measured out-of-place time\n";
  for (const auto& path : logs) {
    const std::string text = read_input_file(path);
    const fit::NcclLog log = fit::parse_nccl_log(text, path, read);
    const fit::LogSettings settings = fit::log_settings(log);
    const std::string release = log.nccl_version.empty() ? nccl_version : log.nccl_version;
    if (platform) {
      reference.reset();
      topo.emplace(*platform, HardwareSpec{}, settings.p2p_level, release);
      CollectiveSpec spec;
      spec.nccl_version = release;
      reference = std::make_unique<CollectiveModel>(*topo, spec, nullptr);
    }
    int nodes = 1;
    std::string cls = infer_path_class(text, std::filesystem::path(path).filename().string(), log.hosts, nodes);
    std::optional<GroupSummary> box;
    if (reference) box = reference->summary(log.op, gpus);
    if (!path_class.empty()) cls = path_class;
    else if (reference) cls = box_class(*reference, gpus);
    if (box) nodes = box->nodes;
    fit::FitOptions opt;
    opt.ll128 = cls == "NVL" || cls.empty() || cls == "NET";  // NCCL runs LL128 on NVLink (and some networks) only
    opt.nodes = nodes;
    const std::string& forced_protocol = settings.protocol.empty() ? protocol : settings.protocol;
    for (Protocol p : ALL_PROTOCOLS)
      if (forced_protocol == protocol_name(p)) opt.forced_protocol = p;
    // Over EFA with GPUs before Hopper aws-ofi-nccl forces Simple (efa_forces_simple), printed or not.
    const std::string transport = !net_transport.empty()          ? net_transport
                                  : !settings.net_transport.empty() ? settings.net_transport
                                  : topo                            ? topo->platform().net_transport
                                                                    : "";
    const bool efa_simple = !opt.forced_protocol && box && efa_forces_simple(net_transport_of(transport), box->nodes, box->compute_capability);
    if (efa_simple) opt.forced_protocol = Protocol::Simple;
    const std::string& forced_algorithm = settings.algorithm.empty() ? algorithm : settings.algorithm;
    if (!forced_algorithm.empty()) opt.forced_algorithm = forced_algorithm_of(forced_algorithm, nodes);
    // What the log ran under, before a short log's one line is taken as if forced.
    const std::optional<Algorithm> log_algorithm = opt.forced_algorithm;
    const std::optional<Protocol> log_protocol = opt.forced_protocol;
    const auto short_line = short_log_line(log, opt, reference.get(), gpus);
    if (short_line) {
      opt.forced_protocol = short_line->second;
      if (!opt.forced_algorithm) opt.forced_algorithm = short_line->first;
    }
    fit::CollectiveFit f = fit::fit_collective(log, opt);
    f.path_class = cls;
    f.forced_algorithm = log_algorithm, f.forced_protocol = log_protocol;
    if (box) f.nvlink_fabric = box->nvlink_fabric;
    // The GPU the log's Rank lines name is what ran (recorded by the GPU table's name); the platform
    // only stands in for its links. A name the table does not know was fitted as the platform's GPU,
    // whose defaults the lines are measured against: the calibration records that one, so that it
    // applies on the platform it was fitted on.
    const GpuSpec* logged = find_gpu_any_name(log.gpu_name);
    const GpuSpec* ran_on = logged ? logged : curve_setup.gpu;  // --gpu says it where the log does not
    f.gpu = ran_on ? ran_on->name : box ? box->gpu_model : log.gpu_name;
    f.nccl_version = release;
    // (A name nccl-tests does not print, from a wrapper, is not recorded: the calibration would refuse it.)
    if (!log.rows.empty() && nccl_type_bytes(log.rows.front().type)) f.datatype = log.rows.front().type;
    std::vector<std::string> notes;
    for (const auto& note : {flag_not_used("NCCL " + log.nccl_version, "--nccl-version", nccl_version,
                                           !log.nccl_version.empty() && log.nccl_version != nccl_version),
                             flag_not_used("NCCL_ALGO=" + settings.algorithm, "--algorithm", algorithm,
                                           !settings.algorithm.empty() && settings.algorithm != algorithm),
                             flag_not_used("NCCL_PROTO=" + settings.protocol, "--protocol", protocol,
                                           !settings.protocol.empty() && settings.protocol != protocol)})
      if (note) notes.push_back(*note);
    if (short_line)
      notes.push_back(fmt::format("{} timed sizes are too few for a line per protocol ({} a line): fitted the one line the "
                                  "platform's defaults run at them, {}/{} (at its largest size), as if forced; the other protocols "
                                  "are written as copies the data did not constrain (fitted: false), and runs take their defaults",
                                  f.points.size(), fit::POINTS_PER_LINE, algorithm_name(short_line->first),
                                  protocol_name(short_line->second)));
    if (!forced_algorithm.empty())
      notes.push_back(fmt::format("{} NCCL_ALGO={}: its lines and pieces are labelled {} (the steps a latency moves by to another "
                                  "rank count)",
                                  settings.algorithm.empty() ? "--algorithm: the log ran" : "the log forced", forced_algorithm,
                                  algorithm_name(*opt.forced_algorithm)));
    if (opt.forced_protocol && !short_line)
      notes.push_back(fmt::format("{0} NCCL_PROTO={1}: only the {1} line is fitted, and size pieces, where the curve steps (NCCL "
                                  "still picks the algorithm and its channels), all run {1}; the other protocols are written as "
                                  "copies the data did not constrain (fitted: false), and runs take their defaults",
                                  efa_simple                  ? "over AWS EFA with GPUs before Hopper aws-ofi-nccl sets NCCL_PROTO=simple "
                                                                "(p3dn, p4d, p4de; --protocol for a run that did otherwise): the log ran"
                                  : settings.protocol.empty() ? "--protocol: the log ran"
                                                              : "the log forced",
                                  protocol_name(*opt.forced_protocol)));
    // A setting tpsim does not model is in the times the lines were fitted to: a calibration carries it.
    for (const auto& n : settings.notes) {
      if (!n.flag.empty()) continue;
      const fit::LogSetting& e = log.env.at(n.setting);
      notes.push_back(fmt::format("the log ran with {}={} (line {}), which tpsim does not model: the fitted lines carry what it did "
                                  "to this box's times, to wherever the calibration is applied",
                                  n.setting, e.value, e.line));
    }
    if (box && ran_on && !same_gpu(ran_on->name, box->gpu_model))
      notes.push_back(fmt::format("the log ran on {}{}, the platform's GPUs are {}: the calibration records the log's", f.gpu,
                                  logged ? "" : " (--gpu)", box->gpu_model));
    else if (box && !logged && !log.gpu_name.empty())
      notes.push_back(fmt::format("the log ran on '{}', a name tpsim's GPU table does not hold: fitted as the platform's {}, "
                                  "which the calibration records",
                                  log.gpu_name, box->gpu_model));
    if (box && int(gpus.size()) == f.nranks) {
      if (const auto pace = largest_size_note(log, *reference, gpus)) notes.push_back(f.pace_note = *pace);
      fit::annotate_transfer(f, box->raw_Bps, nvls_above_Bps(*box));
      check_platform_carries(f, log, platform_path);
      if (opt.forced_algorithm)
        for (auto& line : f.protocols) line.algorithm = *opt.forced_algorithm;
      for (Protocol p : ALL_PROTOCOLS) {
        fit::ProtocolFit& line = f.protocols[static_cast<int>(p)];
        const double model_Bps = reference->default_bus_Bps(p, line.algorithm, log.op, gpus);
        if (model_Bps > 0 && line.constrained) line.model_fraction = line.bus_bw_Bps / model_Bps;
      }
      f.cpu_vendor = topo->platform().cpu_vendor;
      if (box->nodes > 1) {
        const std::string& logged = settings.net_transport;
        f.net_transport = transport;
        const std::string said = logged == "tcp" ? "the log ran over NCCL's TCP sockets (its NCCL_IB_DISABLE=1 or network Socket)"
                                                 : "the log ran over AWS EFA (its network AWS Libfabric or OFI)";
        if (!logged.empty())
          notes.push_back(!net_transport.empty() ? said + "; --net-transport " + net_transport + " given, it stands"
                          : logged == "tcp"      ? said + ": recorded as net_transport tcp; --net-transport rdma for a net plugin that ignored it"
                                                 : said + ": recorded as net_transport efa");
      }
      if (box->staged_edge && f[Protocol::Simple].constrained) {
        const StagingFit s = fit_staging(*box->staged_edge, f[Protocol::Simple].bus_bw_Bps);
        f.host_copy_Bps = s.host_copy_Bps, f.socket_copy_Bps = s.socket_copy_Bps;
        notes.push_back(s.note);
      }
    } else if (box) {
      f.transfer_note = fmt::format("not annotated for other boxes: --gpus names {} GPUs but the log ran {} ranks, so the fitted "
                                    "rings' wire rate is unknown; the bandwidths are absolute and carry only to the same links",
                                    gpus.size(), f.nranks);
      notes.push_back(f.transfer_note);
    }
    std::cout << fmt::format("{}: {} on {} ranks ({}), {} sizes; sizes >= 1 KiB: median {:.1f}%, worst {:.1f}% at {:.0f} B\n", path,
                             collective_op_name(f.op), f.nranks, cls.empty() ? "path class unknown" : cls, log.rows.size(), f.large.median * 100,
                             f.large.worst * 100, f.large.worst_size_B);
    if (f.gpus_per_thread > 1) std::cout << fmt::format("  note: {}\n", fit::serial_launch_note(f.gpus_per_thread, f.nccl_version));
    if (!log.failure.empty()) std::cout << fmt::format("  note: {}\n", fit::failure_note(log));
    if (!log.shared_gpu.empty()) std::cout << fmt::format("  note: {}\n", fit::shared_gpu_note(log));
    if (log.bw_before_2020) std::cout << fmt::format("  note: {}\n", fit::bw_before_2020_note(log));
    if (const auto note = fit::datatype_note(log)) std::cout << fmt::format("  note: {}\n", *note);
    if (log.hosts > 1 && log.ranks_listed < log.nranks && !box)
      notes.push_back(fmt::format("the log's Rank lines list {} of its {} ranks, on {} hosts: its nodes are at least {}, fitted as {} "
                                  "(a '# nodes: N' comment in the log, or --platform and --gpus, say how many)",
                                  log.ranks_listed, log.nranks, log.hosts, log.hosts, nodes));
    if (const auto unbounded = fit::unbounded_bandwidth_note(f)) notes.push_back(*unbounded);
    if (const auto flat = fit::flat_lines_note(f)) notes.push_back(*flat);
    for (const auto& n : notes) std::cout << fmt::format("  note: {}\n", n);
    cal.files.push_back(path);
    fitted.push_back({log, text, cls, f});
    cal.collectives.push_back(std::move(f));
  }
  const TableText gemm{gemm_path, gemm_path.empty() ? "" : read_input_file(gemm_path)},
      hbm{hbm_path, hbm_path.empty() ? "" : read_input_file(hbm_path)};
  if (!gemm_path.empty()) {
    cal.gemm = fit::parse_gemm_csv(gemm.text, gemm_path);
    cal.files.push_back(gemm_path);
    const fit::GemmCrossCheck check = fit::cross_check(*cal.gemm);
    std::cout << fmt::format(
        "{}: {} GEMM shapes; the table gives them back exactly but the {} deep memory-bound ones, which take their "
        "shape's median efficiency (at most {:.1f}% from their own time); each left out, the others predict it within "
        "{:.1f}% median, {:.1f}% worst (m={} n={} k={}) on the table's own roofline ({:.0f} TFLOP/s, {:.0f} GB/s)\n",
        gemm_path, check.points, check.pooled, check.recorded_worst * 100, check.median * 100, check.worst * 100, check.worst_point.m,
        check.worst_point.n, check.worst_point.k, check.peak_flops / 1e12, check.hbm_bw_Bps / 1e9);
  }
  if (!hbm_path.empty()) {
    cal.hbm = fit::parse_hbm_csv(hbm.text, hbm_path);
    cal.files.push_back(hbm_path);
    std::cout << fmt::format("{}: HBM copy bandwidth {:.0f} GB/s (read + write)\n", hbm_path, cal.hbm->bw_Bps / 1e9);
  }
  cal.gpu = tables_gpu(curve_setup.gpu, {gemm, hbm});
  // The options that shaped the fit follow the files on the first line, so that it can be refitted.
  for (const auto& [flag, value] : {std::pair{"--platform", &platform_path}, {"--gpus", &gpus_text}, {"--gpu", &curve.gpu_name},
                                    {"--op", &op_text}, {"--path-class", &path_class}, {"--nccl-version", &nccl_version},
                                    {"--net-transport", &net_transport}, {"--protocol", &protocol}, {"--algorithm", &algorithm}})
    if (!value->empty()) cal.files.insert(cal.files.end(), {flag, *value});
  std::string yaml = fit::calibration_yaml(cal);
  if (!launch_path.empty()) {
    const fit::LaunchFit launch = fit::parse_launch_csv(read_input_file(launch_path), launch_path);
    if (launch.kernel_launch_s) yaml += fmt::format("kernel_launch: {:.3f}us   # back-to-back launches, {}\n", *launch.kernel_launch_s * 1e6, launch_path);
    if (launch.graph_launch_s) yaml += fmt::format("graph_launch: {:.3f}us    # smallest measured CUDA graph, {}\n", *launch.graph_launch_s * 1e6, launch_path);
    std::cout << fmt::format("{}: launch overheads read\n", launch_path);
  }
  // The curves read before anything is written: a reading that fails leaves no file behind.
  const CurveReport reading = read_fitted_curves(curve_setup, fitted, yaml, platform_path, gpus);
  std::cout << render_curve_text(reading);
  write_file_atomically(output, yaml);
  std::cout << "wrote " << output << "\n";
  if (!json_path.empty()) write_file_atomically(json_path, render_curve_json(reading));
  write_curve_plot(reading, curve.plot_path);
  return 0;
}

}  // namespace tpsim

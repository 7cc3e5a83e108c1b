#include "platform_file.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <pugixml.hpp>

#include "p2p_policy.hpp"
#include "util/error.hpp"
#include "util/spelling.hpp"
#include "util/text_file.hpp"
#include "util/units.hpp"

namespace tpsim {

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink: return "nvlink";
    case LinkKind::nvswitch: return "nvswitch";
    case LinkKind::pcie: return "pcie";
    case LinkKind::pcie_switch: return "pcie_switch";
    case LinkKind::host_bridge: return "host_bridge";
    case LinkKind::upi: return "upi";
    case LinkKind::nic: return "nic";
    case LinkKind::fabric: return "fabric";
  }
  return "?";
}

const GpuDesc* PlatformDesc::gpu(int index) const {
  for (const auto& g : gpus)
    if (g.index == index) return &g;
  return nullptr;
}

std::optional<std::vector<RouteHop>> PlatformDesc::route(const std::string& src, const std::string& dst) const {
  auto it = routes.find({src, dst});
  if (it != routes.end()) return it->second;
  auto zs = zone_of.find(src), zd = zone_of.find(dst);
  if (zs == zone_of.end() || zd == zone_of.end() || zs->second == zd->second) return std::nullopt;
  auto zr = zone_routes.find({zs->second, zd->second});
  if (zr == zone_routes.end()) return std::nullopt;
  auto leg = [&](const std::string& a, const std::string& b) -> std::optional<std::vector<RouteHop>> {
    if (a == b) return std::vector<RouteHop>{};
    auto r = routes.find({a, b});
    return r == routes.end() ? std::nullopt : std::optional(r->second);
  };
  auto up = leg(src, zr->second.gw_src), down = leg(zr->second.gw_dst, dst);
  if (!up || !down) return std::nullopt;
  up->insert(up->end(), zr->second.hops.begin(), zr->second.hops.end());
  up->insert(up->end(), down->begin(), down->end());
  return up;
}

namespace {

class Reader {
public:
  Reader(std::string file, std::string text) : file_(std::move(file)), text_(std::move(text)) {}

  Location at(const pugi::xml_node& n) const { return at_offset(n.offset_debug()); }
  Location at_offset(std::ptrdiff_t offset) const {
    Location loc{file_, 1, 1};
    for (std::ptrdiff_t i = 0; i < offset && i < std::ptrdiff_t(text_.size()); ++i) {
      if (text_[i] == '\n') {
        ++loc.line;
        loc.col = 1;
      } else {
        ++loc.col;
      }
    }
    return loc;
  }
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& msg) const { throw InputError(at(n), msg); }

  std::string attr(const pugi::xml_node& n, const char* name) const {
    auto a = n.attribute(name);
    if (!a) fail(n, std::string("<") + n.name() + "> needs a '" + name + "' attribute");
    return a.value();
  }
  double quantity(const pugi::xml_node& n, const char* name, Quantity q) const {
    try {
      return parse_quantity(attr(n, name), q);
    } catch (const ValueError& e) {
      fail(n, std::string("<") + n.name() + "> attribute '" + name + "': " + e.what());
    }
  }
  std::map<std::string, std::string> props(const pugi::xml_node& n) const {
    std::map<std::string, std::string> p;
    for (auto c : n.children("prop")) p[attr(c, "id")] = attr(c, "value");
    return p;
  }

  void read(PlatformDesc& out);

private:
  void read_zone(const pugi::xml_node& zone, PlatformDesc& out);
  std::vector<RouteHop> read_hops(const pugi::xml_node& route, const PlatformDesc& out) const;
  LinkKind kind_of(const pugi::xml_node& link, const std::string& value) const;
  void read_zone_prop(const pugi::xml_node& prop, PlatformDesc& out) const;

  std::string file_, text_;
  std::map<std::string, int> link_index_;
  std::map<std::string, pugi::xml_node> hosts_;
  std::vector<std::pair<GpuDesc, pugi::xml_node>> gpus_;
};

LinkKind Reader::kind_of(const pugi::xml_node& link, const std::string& value) const {
  static const std::vector<std::string> names{"nvlink", "nvswitch", "pcie", "pcie_switch",
                                              "host_bridge", "upi", "nic", "fabric"};
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return static_cast<LinkKind>(i);
  fail(link, "link kind '" + value + "' is not one of nvlink, nvswitch, pcie, pcie_switch, host_bridge, upi, nic, fabric" +
                 did_you_mean(value, names));
}

// A zone's `p2p_level`, `cpu_vendor` and `net_transport` (platforms/README.md); other properties are SimGrid's.
void Reader::read_zone_prop(const pugi::xml_node& prop, PlatformDesc& out) const {
  const std::string id = attr(prop, "id");
  static const std::map<std::string, std::pair<const std::vector<std::string>& (*)(), std::string PlatformDesc::*>> props{
      {"p2p_level", {p2p_level_names, &PlatformDesc::p2p_level}},
      {"cpu_vendor", {cpu_vendor_names, &PlatformDesc::cpu_vendor}},
      {"net_transport", {net_transport_names, &PlatformDesc::net_transport}}};
  const auto known = props.find(id);
  if (known == props.end()) return;
  const std::string value = attr(prop, "value");
  const auto& allowed = known->second.first();
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    std::string list;
    for (std::size_t i = 0; i < allowed.size(); ++i) list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
    fail(prop, id + " '" + value + "' is not one of " + list + did_you_mean(value, allowed));
  }
  out.*known->second.second = value;
}

std::vector<RouteHop> Reader::read_hops(const pugi::xml_node& route, const PlatformDesc& out) const {
  std::vector<RouteHop> hops;
  for (auto ctn : route.children("link_ctn")) {
    const std::string id = attr(ctn, "id");
    auto it = link_index_.find(id);
    if (it == link_index_.end()) fail(ctn, "route uses link '" + id + "', which is not defined above it");
    const std::string dir = ctn.attribute("direction").as_string("NONE");
    if (out.links[it->second].split_duplex && dir != "UP" && dir != "DOWN")
      fail(ctn, "SPLITDUPLEX link '" + id + "' needs direction=\"UP\" or \"DOWN\" in a route");
    hops.push_back({it->second, dir == "DOWN"});
  }
  return hops;
}

// The same links the other way: reverse order, opposite direction.
std::vector<RouteHop> reversed(const std::vector<RouteHop>& hops) {
  std::vector<RouteHop> back(hops.rbegin(), hops.rend());
  for (auto& h : back) h.reverse = !h.reverse;
  return back;
}

void Reader::read_zone(const pugi::xml_node& zone, PlatformDesc& out) {
  const std::string zone_id = zone.attribute("id").as_string();
  for (auto child : zone.children()) {
    const std::string tag = child.name();
    if (tag == "zone") {
      if (std::string(child.attribute("routing").as_string()) != "Full")
        fail(child, "tpsim reads zones with routing=\"Full\" (see platforms/README.md)");
      read_zone(child, out);
    } else if (tag == "router") {
      const std::string id = attr(child, "id");
      if (hosts_.count(id)) fail(child, "'" + id + "' is defined twice");
      hosts_[id] = child;
      out.zone_of[id] = zone_id;
    } else if (tag == "zoneRoute") {
      const std::string src = attr(child, "src"), dst = attr(child, "dst");
      PlatformDesc::ZoneRoute zr{attr(child, "gw_src"), attr(child, "gw_dst"), read_hops(child, out)};
      for (const auto& gw : {zr.gw_src, zr.gw_dst})
        if (!hosts_.count(gw)) fail(child, "zoneRoute gateway '" + gw + "' is not a router or host defined above it");
      PlatformDesc::ZoneRoute back{zr.gw_dst, zr.gw_src, reversed(zr.hops)};
      out.zone_routes[{src, dst}] = zr;
      if (std::string(child.attribute("symmetrical").as_string("YES")) != "NO") out.zone_routes.emplace(std::pair{dst, src}, back);
    } else if (tag == "host") {
      const std::string id = attr(child, "id");
      out.zone_of[id] = zone_id;
      quantity(child, "speed", Quantity::flop_rate);
      if (hosts_.count(id)) fail(child, "host '" + id + "' is defined twice");
      hosts_[id] = child;
      auto p = props(child);
      if (p.count("role") && p["role"] == "cpu") out.cpus.push_back(id);
      if (!p.count("gpu_model")) continue;
      GpuDesc g;
      g.host = id;
      g.model = p["gpu_model"];
      g.spec = find_gpu(g.model);
      if (!g.spec) fail(child, "unknown gpu_model '" + g.model + "'" + did_you_mean(g.model, gpu_names()));
      if (!p.count("index")) fail(child, "GPU host '" + id + "' needs an 'index' property");
      // A whole number in [0, 1000000]: never truncated, and never cast from a value an int cannot hold.
      auto whole = [&](const std::string& key) {
        const double v = parse_number(p[key]);
        if (v != std::floor(v) || v < 0 || v > 1'000'000)
          throw ValueError("'" + key + "' must be a whole number from 0 to 1000000, not " + p[key]);
        return static_cast<int>(v);
      };
      try {
        g.index = whole("index");
        g.node = p.count("node") ? whole("node") : 0;
      } catch (const ValueError& e) {
        fail(child, "GPU host '" + id + "': " + e.what());
      }
      g.p2p = !(p.count("p2p") && p["p2p"] == "no");
      if (p.count("cpu")) g.cpu = p["cpu"];
      gpus_.emplace_back(g, child);
    } else if (tag == "link") {
      LinkDesc l;
      l.id = attr(child, "id");
      l.bandwidth_Bps = quantity(child, "bandwidth", Quantity::bandwidth);
      if (l.bandwidth_Bps <= 0) fail(child, "link '" + l.id + "' has zero bandwidth");
      l.latency_s = child.attribute("latency") ? quantity(child, "latency", Quantity::time) : 0.0;
      const std::string sharing = child.attribute("sharing_policy").as_string("SHARED");
      if (sharing != "SHARED" && sharing != "SPLITDUPLEX" && sharing != "FATPIPE")
        fail(child, "sharing_policy '" + sharing + "' is not SHARED, SPLITDUPLEX or FATPIPE");
      l.split_duplex = sharing == "SPLITDUPLEX";
      auto p = props(child);
      if (!p.count("kind")) fail(child, "link '" + l.id + "' needs a 'kind' property (see platforms/README.md)");
      l.kind = kind_of(child, p["kind"]);
      if (l.kind == LinkKind::pcie_switch && p.count("members")) {
        std::istringstream words(p["members"]);
        for (std::string m; words >> m;) l.members.push_back(m);
      }
      if (link_index_.count(l.id)) fail(child, "link '" + l.id + "' is defined twice");
      link_index_[l.id] = static_cast<int>(out.links.size());
      out.links.push_back(l);
    } else if (tag == "route") {
      const std::string src = attr(child, "src"), dst = attr(child, "dst");
      for (const auto& h : {src, dst})
        if (!hosts_.count(h)) fail(child, "route names host '" + h + "', which is not defined above it");
      std::vector<RouteHop> hops = read_hops(child, out);
      out.routes[{src, dst}] = hops;
      if (std::string(child.attribute("symmetrical").as_string("YES")) != "NO") out.routes.emplace(std::pair{dst, src}, reversed(hops));
    } else if (tag == "prop") {
      read_zone_prop(child, out);
    } else if (tag == "config" || tag == "cluster" || tag == "backbone") {
      if (tag != "config")
        fail(child, "<" + tag + "> is not read by tpsim yet: write nodes as <zone routing=\"Full\"> joined by <zoneRoute>s (platforms/README.md)");
    } else if (child.type() == pugi::node_element) {
      fail(child, "unexpected element <" + tag + "> in a zone");
    }
  }
}

void Reader::read(PlatformDesc& out) {
  pugi::xml_document doc;
  auto result = doc.load_string(text_.c_str(), pugi::parse_default | pugi::parse_doctype);
  if (!result) throw InputError(at_offset(result.offset), std::string("not valid XML: ") + result.description());
  auto root = doc.child("platform");
  if (!root) throw InputError({file_, 1, 1}, "not a SimGrid platform: no <platform> element");
  bool has_doctype = false;
  for (auto n : doc.children())
    if (n.type() == pugi::node_doctype) has_doctype = true;
  if (!has_doctype)
    fail(root, "missing <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> (SimGrid needs it)");
  if (std::string(root.attribute("version").as_string()) != "4.1") fail(root, "<platform> must have version=\"4.1\"");
  read_zone(root, out);
  std::sort(gpus_.begin(), gpus_.end(), [](auto& a, auto& b) { return a.first.index < b.first.index; });
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    if (i > 0 && gpus_[i].first.index == gpus_[i - 1].first.index)
      fail(gpus_[i].second, "two GPUs have index " + std::to_string(gpus_[i].first.index));
    out.gpus.push_back(gpus_[i].first);
  }
  if (out.gpus.empty()) fail(root, "the platform has no GPU host (a <host> with a 'gpu_model' property)");
  for (auto& [g, node] : gpus_) {
    if (!g.cpu.empty() && !hosts_.count(g.cpu)) fail(node, "GPU '" + g.host + "' names cpu '" + g.cpu + "', which is not a host");
  }
  // A GPU without an explicit socket uses the first CPU it has a route to.
  for (auto& g : out.gpus) {
    if (!g.cpu.empty()) continue;
    for (const auto& c : out.cpus)
      if (out.route(g.host, c)) {
        g.cpu = c;
        break;
      }
  }
}

}  // namespace

PlatformDesc load_platform_file(const std::string& path) {
  PlatformDesc out;
  out.file = path;
  Reader(path, read_input_file(path, "platform file")).read(out);
  return out;
}

}  // namespace tpsim

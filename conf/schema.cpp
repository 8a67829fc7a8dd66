// Every key of the experiment file, declared once. docs/configuration.md has a row per key;
// tests/conf/docs_test.cpp checks that the two agree.
#include "conf/schema.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "conf/explicit_topology.h"
#include "conf/folder_name.h"
#include "conf/sections.h"

namespace spraylab::conf {
namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();

// Fat-tree radix: k/2 ports down and k/2 up, so k must be even.
Field<TopologySpec> fat_tree_k() {
  return {"k",
          "even integer >= 2",
          "switch radix (ports per switch)",
          [](const Value& v, TopologySpec& t) {
            constexpr std::string_view kWhat = "an even integer >= 2";
            t.k = static_cast<uint32_t>(v.as_uint(2, kMax32, kWhat));
            if (t.k % 2 != 0) v.expected(kWhat);
          },
          [](const TopologySpec& t) { return std::to_string(t.k); },
          "required"};
}

// A depth in the buffer: a size or a percentage of buffer.bytes (read before it), at most that.
uint64_t buffer_depth(const Value& v, const BufferSpec& b) {
  const std::string what =
      "a size or a percentage of buffer.bytes, at most " + format_size(b.bytes);
  const std::string text = v.scalar(what);
  if (auto percent = parse_percent(text)) {
    if (*percent > 100) v.expected("a percentage in [0%, 100%]");
    return static_cast<uint64_t>(*percent / 100 * static_cast<double>(b.bytes));
  }
  auto bytes = parse_size_bytes(text);
  if (!bytes || *bytes > b.bytes) v.expected(what);
  return *bytes;
}

Field<BufferSpec> ecn_threshold() {
  return {"ecn_threshold", "size or percentage of bytes",
          "mark ECN on packets enqueued beyond this depth; 0 = no marking",
          [](const Value& v, BufferSpec& b) { b.ecn_threshold = buffer_depth(v, b); },
          [](const BufferSpec& b) { return format_size(b.ecn_threshold); }};
}

// The top of the random marking band, above ecn_threshold (read before it).
Field<BufferSpec> ecn_high() {
  return {"ecn_high", "size or percentage of bytes",
          "beyond ecn_threshold, mark with a probability rising linearly to 1 at this depth; "
          "0 = mark every packet beyond ecn_threshold",
          [](const Value& v, BufferSpec& b) {
            b.ecn_high = buffer_depth(v, b);
            if (b.ecn_high != 0 && b.ecn_high <= b.ecn_threshold) {
              v.fail(fmt::format("ecn_high must be above ecn_threshold ({}), or 0",
                                 format_size(b.ecn_threshold)));
            }
          },
          [](const BufferSpec& b) { return format_size(b.ecn_high); }};
}

// The trim threshold: a depth in the buffer, read only with trim: true (read before it).
Field<BufferSpec> trim_threshold() {
  return {"trim_threshold",
          "size or percentage of bytes",
          "trim: cut a data packet to its headers when it would queue beyond this depth",
          [](const Value& v, BufferSpec& b) {
            if (!b.trim) v.fail("read only with trim: true");
            b.trim_threshold = buffer_depth(v, b);
          },
          [](const BufferSpec& b) { return format_size(b.trim_threshold); },
          "bytes"};
}

// pOfan's pipe: one rx queue, or a group of W ingress ports (ALGORITHMS.md, "pOfan").
constexpr std::string_view kQueuePipe = "queue";
constexpr std::string_view kPortsPipe = "ports:";
Field<BalancerSpec> pofan_pipe() {
  return {"pipe", "queue | ports:W", "what shares a pointer: one rx queue, or W ingress ports",
          [](const Value& v, BalancerSpec& s) {
            constexpr std::string_view kWhat = "'queue' or 'ports:W' with W >= 1";
            const std::string text = v.scalar(kWhat);
            if (text == kQueuePipe) {
              s.pipe_ports = 0;
              return;
            }
            const std::string width = text.substr(std::min(text.size(), kPortsPipe.size()));
            if (!text.starts_with(kPortsPipe) || width.empty() ||
                width.find_first_not_of("0123456789") != std::string::npos || width.size() > 9 ||
                std::stoul(width) == 0) {
              v.expected(kWhat);
            }
            s.pipe_ports = static_cast<uint32_t>(std::stoul(width));
          },
          [](const BalancerSpec& s) {
            return s.pipe_ports == 0 ? std::string(kQueuePipe)
                                     : std::string(kPortsPipe) + std::to_string(s.pipe_ports);
          }};
}

// Rows of the all-to-all-v traffic matrix: bytes (or weights) from host i to host j.
Field<WorkloadSpec> skew_matrix() {
  return {
      "matrix", "list of lists of numbers >= 0",
      "all-to-all-v with skew: matrix: row i gives the weight of host i's traffic to each j",
      [](const Value& v, WorkloadSpec& w) {
        w.matrix.clear();
        const std::vector<Value> rows = v.as_list();
        for (const Value& row : rows) {
          auto& out = w.matrix.emplace_back();
          const std::vector<Value> cells = row.as_list();
          if (cells.size() != rows.size()) {
            row.expected(fmt::format("a row of {} numbers (the matrix is square)", rows.size()));
          }
          for (const Value& cell : cells) {
            out.push_back(cell.as_number(0, std::numeric_limits<double>::infinity()));
          }
        }
      },
      [](const WorkloadSpec& w) { return w.matrix.empty() ? "none" : "given"; }};
}

// A trace path relative to the experiment file, so examples work from any directory.
Field<WorkloadSpec> trace_file() {
  return {"trace_file",
          "path",
          "trace: the message trace to replay (relative to the experiment file)",
          [](const Value& v, WorkloadSpec& w) {
            std::filesystem::path path = v.as_string();
            if (path.is_relative()) path = std::filesystem::path(v.source()).parent_path() / path;
            w.trace_file = path.string();
          },
          [](const WorkloadSpec& w) { return w.trace_file; },
          "required for trace"};
}

// DCTCP's initial window: bandwidth-delay products of the flow's path ("2BDP") or a size.
Field<WorkloadSpec> initial_window() {
  return {"initial_window", "NBDP (N > 0) or size >= 1",
          "cc dctcp: the initial window, in bandwidth-delay products of the flow's path or bytes",
          [](const Value& v, WorkloadSpec& w) {
            constexpr std::string_view kWhat =
                "bandwidth-delay products (2BDP, 0.5BDP) or a size (64KB)";
            std::string text = v.scalar(kWhat);
            if (text.size() > 3 && text.ends_with("BDP")) {
              text.resize(text.size() - 3);
              while (!text.empty() && text.back() == ' ') text.pop_back();
              double n = 0;
              const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
              if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !(n > 0) ||
                  !std::isfinite(n)) {
                v.expected(kWhat);
              }
              w.initial_window_bdp = n;
              w.initial_window_bytes = 0;
              return;
            }
            const auto bytes = parse_size_bytes(text);
            if (!bytes || *bytes == 0) v.expected(kWhat);
            w.initial_window_bytes = *bytes;
          },
          [](const WorkloadSpec& w) {
            return w.initial_window_bytes ? format_size(w.initial_window_bytes)
                                          : fmt::format("{}BDP", w.initial_window_bdp);
          }};
}

Field<WorkloadSpec> load() {
  return {"load", "number in (0, 1] | feasible",
          "offered load as a fraction of the line rate; feasible: the highest the links carry "
          "after the link events, perfectly balanced",
          [](const Value& v, WorkloadSpec& w) {
            w.load_feasible = v.node().IsScalar() && v.node().Scalar() == "feasible";
            if (w.load_feasible) return;
            w.load = v.as_number(0, 1);
            if (w.load == 0) v.expected("a number in (0, 1]");
          },
          [](const WorkloadSpec& w) {
            return w.load_feasible ? std::string("feasible") : fmt::format("{}", w.load);
          }};
}

Field<MeasurementSpec> outputs() {
  return {"outputs", "list of summary | queues | messages | plots",
          "what the run writes: JSON summary, per-port queue CSVs, every message in "
          "generator.json, plots",
          [](const Value& v, MeasurementSpec& m) {
            static const std::vector<std::string_view> kOutputs = {"summary", "queues", "messages",
                                                                   "plots"};
            std::set<std::string> seen;
            m.outputs.clear();
            for (const Value& item : v.as_list()) {
              std::string output = item.as_choice(kOutputs);
              if (!seen.insert(output).second)
                item.fail(fmt::format("duplicate output '{}'", output));
              m.outputs.push_back(output);
            }
          },
          [](const MeasurementSpec& m) {
            // One format, not "[" + string + "]": GCC 12 reports a false -Wrestrict on that.
            return fmt::format("[{}]", fmt::join(m.outputs, ", "));
          }};
}

// "a b c" -> {"a", "b", "c"}: the key lists of the name tables (views into static strings).
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t end = std::min(text.find(' '), text.size());
    if (end > 0) out.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

// The names of the algorithms that read queue depths, as the docs of their common keys start.
std::string queue_readers() {
  std::vector<std::string_view> names;
  for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
    if (a.traits.queue_depths) names.push_back(a.name);
  }
  return join(names, " ");
}

// "0 (psp: 4)": a common default followed by the algorithms' own ones.
template <class T>
std::string default_with_exceptions(T common, T lb::AlgorithmDefaults::*member,
                                    const std::function<std::string(T)>& show) {
  std::string text = show(common);
  std::vector<std::string> own;
  for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
    if (a.defaults.*member != common) {
      own.push_back(fmt::format("{}: {}", a.name, show(a.defaults.*member)));
    }
  }
  if (!own.empty()) text += fmt::format(" ({})", fmt::join(own, ", "));
  return text;
}

// The name is the default results folder, results/<name>: it must stay one folder there
// (conf/folder_name.h), whatever the file says.
Field<Experiment> experiment_name() {
  return {"name", "folder name", "experiment name, the results folder's name (results/<name>)",
          [](const Value& v, Experiment& e) {
            const std::string name = v.as_string();
            if (const auto problem = folder_name_problem(name)) {
              v.fail(
                  fmt::format("'{}' cannot name the results folder: it {} (letters, digits, "
                              "'-', '_' and '.' after the first character are safe)",
                              printable(name), *problem));
            }
            e.name = name;
          },
          [](const Experiment& e) { return e.name; }};
}

template <class S>
void set_default(Fields<S>& fields, std::string_view key, std::string_view text) {
  for (auto& field : fields) {
    if (field.key == key) field.default_text = text;
  }
}

// buffer.flow_control: none, pfc (buffer.pfc) or credit (buffer.credit).
Field<BufferSpec> flow_control() {
  return {"flow_control", join(kFlowControlNames, " | "),
          "what a full buffer does: none, tail drop; pfc, 802.1Qbb pause per ingress port "
          "(buffer.pfc); credit, credit-based links (buffer.credit)",
          [](const Value& v, BufferSpec& b) {
            b.flow_control = v.as_enum<FlowControl>(kFlowControlNames);
          },
          [](const BufferSpec& b) {
            return std::string(kFlowControlNames[static_cast<size_t>(b.flow_control)]);
          }};
}

const Fields<PfcSpec>& pfc_fields() {
  static const Fields<PfcSpec> fields = [] {
    Fields<PfcSpec> f = {
        size_key("xoff", &PfcSpec::xoff, 1, kMax64,
                 "an ingress port's buffered bytes beyond which the switch pauses its upstream"),
        size_key("xon", &PfcSpec::xon, 0, kMax64,
                 "the bytes at or below which a paused upstream is resumed (at most xoff)"),
        size_key("headroom", &PfcSpec::headroom, 1, kMax64,
                 "bytes an ingress port may still take beyond xoff: what is on its way while the "
                 "pause travels; a frame beyond it is a pfc_headroom drop"),
    };
    set_default(f, "xoff", "bytes - headroom");
    set_default(f, "xon", "xoff - 2 data frames");
    set_default(f, "headroom",
                "the link's round trip at its rate + 2 data frames + a pause frame");
    return f;
  }();
  return fields;
}

// buffer.pfc: a map of PFC thresholds, read only with flow_control: pfc (read before it).
Field<BufferSpec> pfc_section() {
  return {"pfc", "map of xoff, xon, headroom",
          "flow_control: pfc: the thresholds of every ingress port (buffer.pfc.*)",
          [](const Value& v, BufferSpec& b) {
            if (b.flow_control != FlowControl::kPfc) v.fail("read only with flow_control: pfc");
            read_section(v.as_map(), pfc_fields(), b.pfc);
          },
          [](const BufferSpec& b) {
            return fmt::format("{{xoff: {}, xon: {}, headroom: {}}}", format_size(b.pfc.xoff),
                               format_size(b.pfc.xon), format_size(b.pfc.headroom));
          },
          "derived"};
}

const Fields<CreditSpec>& credit_fields() {
  static const Fields<CreditSpec> fields = [] {
    Fields<CreditSpec> f = {
        size_key("bytes", &CreditSpec::bytes, 1, kMax64,
                 "every link receiver's buffer (a switch's per ingress port, a host NIC's): the "
                 "credits its sender starts with; at least one data frame"),
        size_key("unit", &CreditSpec::unit, 1, kMax64,
                 "the credit's granularity: a frame takes its bytes rounded up to whole units"),
    };
    set_default(f, "bytes", "the link's round trip at its rate + 2 data frames + a credit frame");
    return f;
  }();
  return fields;
}

// buffer.credit: a map of the credit buffer, read only with flow_control: credit (read before it).
Field<BufferSpec> credit_section() {
  return {"credit", "map of bytes, unit",
          "flow_control: credit: every link receiver's buffer (buffer.credit.*)",
          [](const Value& v, BufferSpec& b) {
            if (b.flow_control != FlowControl::kCredit) {
              v.fail("read only with flow_control: credit");
            }
            read_section(v.as_map(), credit_fields(), b.credit);
          },
          [](const BufferSpec& b) {
            return fmt::format("{{bytes: {}, unit: {}}}", format_size(b.credit.bytes),
                               format_size(b.credit.unit));
          },
          "derived"};
}

template <class S>
void add_docs(std::vector<KeyDoc>& out, const std::string& prefix, const Fields<S>& fields) {
  const S defaults{};
  for (const auto& f : fields) {
    out.push_back({prefix + std::string(f.key), f.type,
                   f.default_text.empty() ? f.show(defaults) : std::string(f.default_text),
                   std::string(f.doc)});
  }
}

}  // namespace

const Fields<Experiment>& experiment_fields() {
  static const Fields<Experiment> fields = [] {
    Fields<Experiment> f = {
        experiment_name(),
        integer_key(
            "seed", &Experiment::seed, 0, kMax64,
            "seed of every random choice (workload, balancers; topology.seed defaults to it)"),
    };
    set_default(f, "name", "the file's stem");
    return f;
  }();
  return fields;
}

const Fields<TopologySpec>& topology_fields() {
  static const Fields<TopologySpec> fields = [] {
    Fields<TopologySpec> f = {
        enum_key("generator", &TopologySpec::generator, topo::kKindNames,
                 "how the topology is made; explicit when omitted and switches is given"),
        fat_tree_k(),
        integer_key("levels", &TopologySpec::levels, 2, 4,
                    "fat-tree: 2 (leaf-spine), 3 or 4 levels"),
        integer_key("pods", &TopologySpec::pods, 1, kMax32,
                    "fat-tree, 4 levels: pods built, at most k (fewer: depopulated, every core "
                    "kept; the MRLS paper's 50 % populated tree is k/2)"),
        integer_key("leaves", &TopologySpec::leaves, 1, kMax32,
                    "leaf-spine, mrls: leaf switches N1"),
        integer_key("spines", &TopologySpec::spines, 1, kMax32, "leaf-spine: spine switches"),
        integer_key("hosts_per_leaf", &TopologySpec::hosts_per_leaf, 1, kMax32,
                    "leaf-spine, dragonfly-plus, oft: hosts under each leaf"),
        integer_key("uplinks", &TopologySpec::uplinks, 1, kMax32, "mrls: uplinks per leaf u"),
        integer_key("downlinks", &TopologySpec::downlinks, 1, kMax32,
                    "mrls: host ports per leaf d (radix R = u + d)"),
        integer_key("seed", &TopologySpec::seed, 0, kMax64, "mrls: wiring seed"),
        integer_key(
            "max_tries", &TopologySpec::max_tries, 1, kMax32,
            "mrls: wirings tried before giving up (re-rolled on disconnection or a corner)"),
        integer_key("hosts_per_router", &TopologySpec::hosts_per_router, 1, kMax32,
                    "dragonfly: hosts per router p"),
        integer_key("routers_per_group", &TopologySpec::routers_per_group, 1, kMax32,
                    "dragonfly: routers per group a (all-to-all local links)"),
        integer_key("global_links_per_router", &TopologySpec::global_links_per_router, 1, kMax32,
                    "dragonfly: global links per router h"),
        integer_key("groups", &TopologySpec::groups, 2, kMax32,
                    "dragonfly, dragonfly-plus: groups g; g − 1 must divide the global ports "
                    "per group (a·h, or spines_per_group·h)"),
        integer_key("leaves_per_group", &TopologySpec::leaves_per_group, 1, kMax32,
                    "dragonfly-plus: leaf switches per group (they carry the hosts)"),
        integer_key("spines_per_group", &TopologySpec::spines_per_group, 1, kMax32,
                    "dragonfly-plus: spine switches per group (linked to every leaf of it)"),
        integer_key("global_links_per_spine", &TopologySpec::global_links_per_spine, 1, kMax32,
                    "dragonfly-plus: global links per spine h"),
        integer_key("q", &TopologySpec::q, 2, kMax32,
                    "oft: order of the projective plane, a prime (MRLS paper Table 2: q = 17)"),
        {"switches", "list of {name, level}", "explicit: the switches; level 0 = leaf",
         [](const Value& v, TopologySpec& t) { t.switches = read_explicit_switches(v); },
         [](const TopologySpec&) { return std::string(); }, "required for explicit"},
        {"hosts", "list of names", "explicit: the hosts",
         [](const Value& v, TopologySpec& t) { t.hosts = read_explicit_hosts(v); },
         [](const TopologySpec&) { return std::string(); }, "required for explicit"},
        {"links", "list of [a, b] or {a, b, rate, delay}",
         "explicit: the links; each host has exactly one",
         [](const Value& v, TopologySpec& t) { t.links = read_explicit_links(v); },
         [](const TopologySpec&) { return std::string(); }, "required for explicit"},
    };
    for (std::string_view key :
         {"leaves", "spines", "hosts_per_leaf", "uplinks", "downlinks", "hosts_per_router",
          "routers_per_group", "global_links_per_router", "leaves_per_group", "spines_per_group",
          "global_links_per_spine", "q"}) {
      set_default(f, key, "required");
    }
    set_default(f, "generator", "explicit if switches is given, else required");
    set_default(f, "seed", "the experiment seed");
    set_default(f, "pods", "k (every pod)");
    set_default(f, "groups",
                "one global link per pair of groups: a·h + 1 (spines_per_group·h + 1)");
    return f;
  }();
  return fields;
}

const VariantTable& topology_generators() {
  static const VariantTable table = {
      "generator",
      "generator",
      {"generator"},
      {
          // In topo::Kind order (checked below): each kind's keys and required keys.
          {to_string(topo::Kind::kFatTree), {"k", "levels", "pods"}, {"k"}},
          {to_string(topo::Kind::kLeafSpine),
           {"leaves", "spines", "hosts_per_leaf"},
           {"leaves", "spines", "hosts_per_leaf"}},
          {to_string(topo::Kind::kMrls),
           {"leaves", "uplinks", "downlinks", "seed", "max_tries"},
           {"leaves", "uplinks", "downlinks"}},
          {to_string(topo::Kind::kExplicit),
           {"switches", "hosts", "links"},
           {"switches", "hosts", "links"}},
          {to_string(topo::Kind::kDragonfly),
           {"hosts_per_router", "routers_per_group", "global_links_per_router", "groups"},
           {"hosts_per_router", "routers_per_group", "global_links_per_router"}},
          {to_string(topo::Kind::kDragonflyPlus),
           {"leaves_per_group", "spines_per_group", "hosts_per_leaf", "global_links_per_spine",
            "groups"},
           {"leaves_per_group", "spines_per_group", "hosts_per_leaf", "global_links_per_spine"}},
          {to_string(topo::Kind::kOft), {"q", "hosts_per_leaf"}, {"q", "hosts_per_leaf"}},
      }};
  return table;
}

const Fields<ExplicitSwitch>& explicit_switch_fields() {
  static const Fields<ExplicitSwitch> fields = [] {
    Fields<ExplicitSwitch> f = {
        string_key("name", &ExplicitSwitch::name, "unique among switches and hosts"),
        integer_key("level", &ExplicitSwitch::level, 0, 15,
                    "0 = leaf, 1 = spine/aggregation, 2 = core"),
    };
    for (auto& field : f) field.default_text = "required";
    return f;
  }();
  return fields;
}

const Fields<ExplicitLink>& explicit_link_fields() {
  static const Fields<ExplicitLink> fields = {
      {"a", "name", "one end: a switch or host",
       [](const Value& v, ExplicitLink& l) { l.a = v.as_string(); },
       [](const ExplicitLink&) { return std::string(); }, "required"},
      {"b", "name", "the other end", [](const Value& v, ExplicitLink& l) { l.b = v.as_string(); },
       [](const ExplicitLink&) { return std::string(); }, "required"},
      {"rate", "rate", "this link's rate",
       [](const Value& v, ExplicitLink& l) { l.rate_bps = v.as_rate(); },
       [](const ExplicitLink&) { return std::string(); }, "links.rate"},
      {"delay", "time", "this link's propagation delay",
       [](const Value& v, ExplicitLink& l) { l.delay_ns = v.as_time(); },
       [](const ExplicitLink&) { return std::string(); }, "links.delay"},
  };
  return fields;
}

const Fields<LinkSpec>& link_fields() {
  static const Fields<LinkSpec> fields = {
      rate_key("rate", &LinkSpec::rate_bps, "every link's rate, both directions"),
      time_key("delay", &LinkSpec::delay_ns, 0, "every link's one-way propagation delay"),
  };
  return fields;
}

const Fields<BufferSpec>& buffer_fields() {
  static const Fields<BufferSpec> fields = [] {
    Fields<BufferSpec> f = {
        size_key("bytes", &BufferSpec::bytes, 1, kMax64,
                 "egress buffer per port; a packet that does not fit is dropped (trimmed, with "
                 "trim)"),
        ecn_threshold(),
        ecn_high(),
        bool_key("trim", &BufferSpec::trim,
                 "cut data packets beyond trim_threshold to their headers, sent ahead of data; the "
                 "receiver NACKs them and the sender resends at once"),
        trim_threshold(),
        flow_control(),
        pfc_section(),
        credit_section(),
        integer_key("virtual_channels", &BufferSpec::virtual_channels, 1,
                    BufferSpec::kMaxVirtualChannels,
                    "virtual channels of every lossless link (flow_control pfc or credit): a "
                    "buffer (buffer.credit.bytes, or PFC's thresholds) per VC at every receiver "
                    "and an egress queue per VC; hop h of a route travels in VC floor(h / 2) "
                    "(MRLS paper §4.3): ceil(longest route / 2) VCs make Polarized and KSP on MRLS "
                    "deadlock-free (docs/switch.md)"),
    };
    set_default(f, "bytes", "800KB; 1xBDP with trim, 5xBDP with cc nscc");
    return f;
  }();
  return fields;
}

const Fields<BalancerSpec>& balancer_fields() {
  static const std::string kQueueUnitDoc = queue_readers() + ": the unit queue depths are read in";
  static const std::string kStateUpdateDoc =
      queue_readers() + ": queue view refresh period; 0 = live";
  static const std::string kStateUpdateDefault = default_with_exceptions<uint64_t>(
      0, &lb::AlgorithmDefaults::state_update_ns,
      [](uint64_t ns) { return format_time(static_cast<double>(ns)); });
  static const std::string kBandsDefault = default_with_exceptions<uint32_t>(
      0, &lb::AlgorithmDefaults::bands, [](uint32_t n) { return std::to_string(n); });
  static const std::string kKDefault = default_with_exceptions<uint32_t>(
      0, &lb::AlgorithmDefaults::k, [](uint32_t n) { return std::to_string(n); });
  static const Fields<BalancerSpec> fields = [] {
    Fields<BalancerSpec> f = {
        enum_key("algorithm", &BalancerSpec::algorithm, lb::kAlgorithmNames,
                 "the load balancer (docs/algorithms.md)"),
        enum_key("queue_unit", &BalancerSpec::queue_unit, lb::kQueueUnitNames, kQueueUnitDoc),
        time_key("state_update", &BalancerSpec::state_update_ns, 0, kStateUpdateDoc),
        integer_key("reshuffle_every", &BalancerSpec::reshuffle_every, 0, kMax32,
                    "rr: reshuffle the order every N wraps; 0 = never"),
        integer_key("bands", &BalancerSpec::bands, 0, 1024,
                    "jsq: queue bands (0 = exact JSQ); psp: bands n (>= 1)"),
        integer_key("k", &BalancerSpec::k, 0, kMax32,
                    "topk: ports to choose among, 0 = w/2; ksp: paths per leaf pair (>= 1)"),
        size_key("threshold", &BalancerSpec::threshold, 0, kMax64,
                 "psp, jsq with bands: maximum threshold Th in the queue unit; 0 = one "
                 "state_update period of line rate, at least 8 packets"),
        integer_key("saturated_weight", &BalancerSpec::saturated_weight, 0, 1,
                    "psp: weight of a queue at or beyond Th (0 excludes the port)"),
        pofan_pipe(),
        size_key("ack_size", &BalancerSpec::ack_size, 1, 65535,
                 "ofan pofan: packets under this many bytes are the ACK size class"),
        number_key("deroute_penalty", &BalancerSpec::deroute_penalty, 0,
                   std::numeric_limits<double>::infinity(),
                   "polarized: added to a deroute's occupancy; ksp: added to a path's first-hop "
                   "occupancy per hop it is longer than the pair's shortest; in packets (of the "
                   "data frame under queue_unit: bytes)"),
        bool_key("atomic_per_packet", &BalancerSpec::atomic_per_packet,
                 "ofan: one atomic per packet instead of per burst (benchmark baseline)"),
        enum_key("consolidate", &BalancerSpec::consolidate, lb::kConsolidateNames,
                 "ofan pofan: what an aggregation switch keys traffic leaving its pod by: the "
                 "destination pod (one pointer per pod) or the destination edge switch"),
        enum_key("hash", &BalancerSpec::ecmp_hash, lb::kEcmpHashNames,
                 "ecmp: mix (a salted hash of the 5-tuple) or digit (the entropy's base-w digit "
                 "of the switch's level: host-chosen paths, for DRB)"),
    };
    set_default(f, "state_update", kStateUpdateDefault);
    set_default(f, "bands", kBandsDefault);
    set_default(f, "k", kKDefault);
    return f;
  }();
  return fields;
}

const VariantTable& balancer_algorithms() {
  static const VariantTable table = [] {
    VariantTable t = {"algorithm", "algorithm", {"algorithm"}, {}};
    for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
      std::vector<std::string_view> keys = words(a.keys);
      if (a.traits.queue_depths) {
        for (std::string_view key : words(lb::kQueueKeys)) keys.push_back(key);
      }
      t.variants.push_back({a.name, std::move(keys), {}});
    }
    return t;
  }();
  return table;
}

BalancerSpec balancer_defaults(lb::Algorithm algorithm) {
  BalancerSpec spec;
  spec.algorithm = algorithm;
  spec.bands = lb::info(algorithm).defaults.bands;
  spec.state_update_ns = lb::info(algorithm).defaults.state_update_ns;
  spec.k = lb::info(algorithm).defaults.k;
  return spec;
}

const Fields<WorkloadSpec>& workload_fields() {
  static const Fields<WorkloadSpec> fields = [] {
    // The congestion controls' keys live in WorkloadSpec::tuning (trafficgen/cc_mode.h).
    const auto tuning = [](Field<gen::CcTuning> field) {
      return nested(&WorkloadSpec::tuning, std::move(field));
    };
    const auto fsdp = [](Field<gen::FsdpSpec> field) {
      return nested(&WorkloadSpec::fsdp, std::move(field));
    };
    Fields<WorkloadSpec> f = {
        enum_key("type", &WorkloadSpec::type, gen::kWorkloadTypeNames, "the collective"),
        size_key("message_size", &WorkloadSpec::message_bytes, 1, kMax64,
                 "bytes each sender sends to each of its destinations"),
        size_key("payload", &WorkloadSpec::payload_bytes, 64, 9000,
                 "UDP payload per data packet, testbed header included"),
        integer_key("iterations", &WorkloadSpec::iterations, 1, kMax32,
                    "times the collective runs back to back"),
        load(),
        enum_key("injection", &WorkloadSpec::injection, gen::kInjectionNames,
                 "how hosts inject: paced at load x the line rate, or the MRLS paper's Bernoulli "
                 "arrivals, a packet per packet slot with probability load, open loop"),
        enum_key("entropy", &WorkloadSpec::entropy, gen::kEntropyModeNames,
                 "UDP source port: fixed per flow (ECMP), random per packet, REPS, DRB, or the "
                 "UEC selectors oblivious, bitmap, mixed"),
        integer_key("entropy_range", &WorkloadSpec::entropy_range, 1, gen::kMaxEntropyRange,
                    "distinct UDP source ports a flow draws from (49152 upwards); a power of two "
                    "for oblivious, bitmap and mixed"),
        integer_key("reps_buffer", &WorkloadSpec::reps_buffer, 1, gen::kMaxRepsBuffer,
                    "entropy reps: good entropies kept per connection"),
        bool_key("reps_freezing", &WorkloadSpec::reps_freezing,
                 "entropy reps: a retransmission timeout freezes the connection on its kept "
                 "entropies for 10 ms"),
        integer_key("bitmap_ecn_penalty", &WorkloadSpec::bitmap_ecn_penalty, 0, 255,
                    "entropy bitmap, mixed: penalty an ACK with an ECN echo adds to its value"),
        integer_key("bitmap_nack_penalty", &WorkloadSpec::bitmap_nack_penalty, 0, 255,
                    "entropy bitmap, mixed: penalty a NACK (trimmed packet) adds to its value"),
        integer_key("bitmap_max_penalty", &WorkloadSpec::bitmap_max_penalty, 1, 255,
                    "entropy bitmap, mixed: the cap on a value's penalty, and what a "
                    "retransmission timeout adds (to the flow's value 0)"),
        enum_key("placement", &WorkloadSpec::placement, gen::kPlacementNames,
                 "which host runs which rank: rank r on host r (the topology's host order), or "
                 "the ranks on the hosts in a random order drawn from the seed"),
        enum_key("order", &WorkloadSpec::order, gen::kAllToAllOrderNames,
                 "all-to-all: each host's send order, ranks 0..n-1 at every host or htsim's "
                 "shifted ring (every round a permutation)"),
        enum_key("skew", &WorkloadSpec::skew, gen::kSkewNames,
                 "all-to-all-v: message sizes drawn from a Zipf law, or given as a matrix"),
        number_key("zipf_s", &WorkloadSpec::zipf_s, 0, std::numeric_limits<double>::infinity(),
                   "all-to-all-v: the Zipf exponent s"),
        skew_matrix(),
        integer_key("fan_in", &WorkloadSpec::fan_in, 1, kMax32, "incast: senders per receiver"),
        integer_key("messages", &WorkloadSpec::messages, 1, kMax32,
                    "uniform, switch-permutation, bipartite: messages each host sends"),
        fsdp(choice_key("model", &gen::FsdpSpec::model,
                        {gen::kModelNames.begin(), gen::kModelNames.end()},
                        "fsdp: the model preset, or custom (every architecture key given)")),
        fsdp(integer_key("model_layers", &gen::FsdpSpec::model_layers, 0, kMax32,
                         "fsdp: the model's transformer layers; 0 = the preset's")),
        fsdp(integer_key("hidden", &gen::FsdpSpec::hidden, 0, kMax32,
                         "fsdp: the model dimension; 0 = the preset's")),
        fsdp(integer_key("ffn", &gen::FsdpSpec::ffn, 0, kMax32,
                         "fsdp: the SwiGLU feed-forward dimension; 0 = the preset's")),
        fsdp(integer_key("heads", &gen::FsdpSpec::heads, 0, kMax32,
                         "fsdp: attention (query) heads; 0 = the preset's")),
        fsdp(integer_key("kv_heads", &gen::FsdpSpec::kv_heads, 0, kMax32,
                         "fsdp: key/value heads (grouped-query attention); 0 = the preset's")),
        fsdp(integer_key(
            "vocab", &gen::FsdpSpec::vocab, 0, kMax32,
            "fsdp: vocabulary size (the embedding and output units); 0 = the preset's")),
        fsdp(integer_key("param_bytes", &gen::FsdpSpec::param_bytes, 1, 8,
                         "fsdp: bytes per all-gathered parameter (2: bf16)")),
        fsdp(integer_key("reduce_bytes", &gen::FsdpSpec::reduce_bytes, 0, 8,
                         "fsdp: bytes per reduce-scattered gradient; 0 = param_bytes (FSDP2's "
                         "default MixedPrecisionPolicy)")),
        fsdp(integer_key("dp_group", &gen::FsdpSpec::dp_group, 0, kMax32,
                         "fsdp: ranks each shard group holds (consecutive ranks, FSDP2's device "
                         "mesh); 0 = every rank")),
        fsdp(integer_key("layers", &gen::FsdpSpec::layers, 0, kMax32,
                         "fsdp: layers simulated, the first ones; 0 = the model's")),
        fsdp(bool_key("embeddings", &gen::FsdpSpec::embeddings,
                      "fsdp: simulate the embedding and output units too")),
        fsdp(integer_key("ring_steps", &gen::FsdpSpec::ring_steps, 0, kMax32,
                         "fsdp: steps simulated of each ring phase, the first ones; 0 = all")),
        trace_file(),
        integer_key("ack_every", &WorkloadSpec::ack_every, 1, 65535,
                    "receivers acknowledge every N data packets"),
        time_key("retransmit_timeout", &WorkloadSpec::retransmit_timeout_ns, 1,
                 "a sender resends a packet not acknowledged within this time; with cc dctcp, "
                 "the minimum RTO"),
        enum_key("cc", &WorkloadSpec::cc, gen::kCongestionControlNames,
                 "host congestion control: none (line rate until a timeout), DCTCP, NSCC, "
                 "MSwift, NSCC with UEC receiver credits (nscc+rccc) or the credits alone (rccc)"),
        initial_window(),
        tuning(time_key("nscc_target_delay", &gen::CcTuning::nscc_target_delay_ns, 0,
                        "cc nscc: the target queueing delay; 0 = the fabric's unloaded RTT")),
        tuning(integer_key(
            "nscc_qa_gate", &gen::CcTuning::nscc_qa_gate, 0, 30,
            "cc nscc: quick adapt acts below max window / 2^gate delivered per period")),
        tuning(bool_key("nscc_quick_adapt", &gen::CcTuning::nscc_quick_adapt,
                        "cc nscc: quick adapt on or off")),
        tuning(bool_key(
            "nscc_accurate_base_rtt", &gen::CcTuning::nscc_accurate_base_rtt,
            "cc nscc: a flow's base RTT starts at its own path's, not the fabric's largest")),
        tuning(integer_key("mswift_subflows", &gen::CcTuning::mswift_subflows, 1,
                           gen::kMaxMswiftSubflows,
                           "cc mswift: sub-windows per flow, one per entropy value mod this")),
        tuning(number_key("mswift_ai", &gen::CcTuning::mswift_ai, 0, 1e6,
                          "cc mswift: additive increase, packets per window of ACKs")),
        tuning(number_key("mswift_beta", &gen::CcTuning::mswift_beta, 0, 1,
                          "cc mswift: the multiplicative decrease's gain")),
        tuning(number_key("mswift_max_mdf", &gen::CcTuning::mswift_max_mdf, 0, 1,
                          "cc mswift: the deepest single cut (a fraction of the window)")),
        tuning(time_key("mswift_base_target", &gen::CcTuning::mswift_base_target_ns, 0,
                        "cc mswift: the delay target's base; 0 = the flow's unloaded path RTT")),
        tuning(
            time_key("mswift_hop_scale", &gen::CcTuning::mswift_hop_scale_ns, 0,
                     "cc mswift: the delay target per hop; 0 = one full frame at the link rate")),
        tuning(time_key("mswift_fs_range", &gen::CcTuning::mswift_fs_range_ns, 0,
                        "cc mswift: Swift's flow-scaling range; 0 = no flow scaling")),
    };
    set_default(f, "nscc_target_delay", "0 (the fabric's unloaded RTT)");
    set_default(f, "mswift_base_target", "0 (the flow's unloaded RTT)");
    set_default(f, "mswift_hop_scale", "0 (one full frame)");
    set_default(f, "mswift_fs_range", "0 (no flow scaling)");
    for (const char* key : {"model_layers", "hidden", "ffn", "heads", "kv_heads", "vocab"})
      set_default(f, key, "0 (the preset's)");
    set_default(f, "reduce_bytes", "0 (param_bytes)");
    set_default(f, "dp_group", "0 (every rank)");
    set_default(f, "layers", "0 (the model's)");
    set_default(f, "ring_steps", "0 (all)");
    return f;
  }();
  return fields;
}

const VariantTable& workload_types() {
  static const VariantTable table = [] {
    VariantTable t = {"type",
                      "workload type",
                      {"type",
                       "message_size",
                       "payload",
                       "iterations",
                       "placement",
                       "load",
                       "injection",
                       "entropy",
                       "entropy_range",
                       "reps_buffer",
                       "reps_freezing",
                       "bitmap_ecn_penalty",
                       "bitmap_nack_penalty",
                       "bitmap_max_penalty",
                       "ack_every",
                       "retransmit_timeout",
                       "cc",
                       "initial_window",
                       "nscc_target_delay",
                       "nscc_qa_gate",
                       "nscc_quick_adapt",
                       "nscc_accurate_base_rtt",
                       "mswift_subflows",
                       "mswift_ai",
                       "mswift_beta",
                       "mswift_max_mdf",
                       "mswift_base_target",
                       "mswift_hop_scale",
                       "mswift_fs_range"},
                      {}};
    for (const gen::WorkloadTypeInfo& w : gen::kWorkloadTypes) {
      t.variants.push_back({w.name, words(w.keys), words(w.required)});
    }
    return t;
  }();
  return table;
}

const Fields<MeasurementSpec>& measurement_fields() {
  static const Fields<MeasurementSpec> fields = {
      time_key("queue_sample", &MeasurementSpec::queue_sample_ns, 1,
               "period of the queue-depth time series"),
      time_key("duration", &MeasurementSpec::duration_ns, 0,
               "stop after this long; 0 = when the workload completes"),
      time_key("warmup", &MeasurementSpec::warmup_ns, 0,
               "virtual time: the accepted-throughput window starts after this long"),
      outputs(),
  };
  return fields;
}

const Fields<EventsSpec>& events_fields() {
  static const Fields<EventsSpec> fields = [] {
    Fields<EventsSpec> f = {
        {"links", "list of {at, link, action, rate, from}",
         "link events in time order: a switch-to-switch link goes down, comes up or changes rate",
         [](const Value& v, EventsSpec& e) { e.links = read_link_events(v); },
         [](const EventsSpec&) { return std::string("none"); }},
        integer_key("random_link_failures", &EventsSpec::random_link_failures, 0, kMax32,
                    "switch-to-switch links that fail (both directions), drawn with the seed"),
        time_key("random_failures_at", &EventsSpec::random_failures_at_ns, 0,
                 "when the random failures happen, after the workload's start"),
        bool_key("reroute", &EventsSpec::reroute,
                 "after a link goes down or up, switches withdraw (or offer again) next hops that "
                 "no longer reach a destination over minimal paths; false: no routing protocol"),
    };
    return f;
  }();
  return fields;
}

const Fields<LinkEventSpec>& link_event_fields() {
  static const Fields<LinkEventSpec> fields = [] {
    Fields<LinkEventSpec> f = {
        time_key("at", &LinkEventSpec::at_ns, 0, "when, after the workload's start"),
        {"link", "[a, b]", "the link, by the switches at its two ends",
         [](const Value& v, LinkEventSpec& e) {
           constexpr std::string_view kWhat = "a link [a, b]: the switches at its two ends";
           if (!v.node().IsSequence()) v.expected(kWhat);
           const std::vector<Value> ends = v.as_list();
           if (ends.size() != 2) v.expected(kWhat);
           e.a = ends[0].as_string();
           e.b = ends[1].as_string();
           if (e.a == e.b) v.fail(fmt::format("link joins '{}' to itself; {}", e.a, kWhat));
         },
         [](const LinkEventSpec&) { return std::string(); }},
        enum_key("action", &LinkEventSpec::action, kLinkActionNames,
                 "down: the ports stop sending, what is queued or in flight is lost; up; rate"),
        {"rate", "rate", "action rate: the link's new rate, at most its own",
         [](const Value& v, LinkEventSpec& e) { e.rate_bps = v.as_rate(); },
         [](const LinkEventSpec&) { return std::string(); }},
        {"from", "name", "only the direction leaving this end (a or b)",
         [](const Value& v, LinkEventSpec& e) { e.from = v.as_string(); },
         [](const LinkEventSpec&) { return std::string(); }},
    };
    for (std::string_view key : {"at", "link", "action"}) set_default(f, key, "required");
    set_default(f, "rate", "required for rate");
    set_default(f, "from", "both directions");
    return f;
  }();
  return fields;
}

std::vector<std::string_view> VariantTable::names() const {
  std::vector<std::string_view> out;
  for (const Variant& v : variants) out.push_back(v.name);
  return out;
}

const Variant& VariantTable::find(std::string_view name) const {
  for (const Variant& v : variants) {
    if (v.name == name) return v;
  }
  throw std::logic_error("no variant " + std::string(name));  // callers pass a checked choice
}

std::vector<std::string_view> VariantTable::allowed(std::string_view name) const {
  std::vector<std::string_view> keys = common;
  const Variant& variant = find(name);
  keys.insert(keys.end(), variant.keys.begin(), variant.keys.end());
  return keys;
}

void check_variant_keys(const Map& map, const VariantTable& table, std::string_view chosen,
                        std::span<const std::string_view> known,
                        std::span<const std::string_view> extra,
                        const std::function<std::string(std::string_view)>& type_of) {
  std::vector<std::string_view> allowed = table.allowed(chosen);
  allowed.insert(allowed.end(), extra.begin(), extra.end());
  const Variant& variant = table.find(chosen);
  map.allow_only(allowed, [&](std::string_view key) -> std::optional<std::string> {
    if (std::find(known.begin(), known.end(), key) == known.end()) return std::nullopt;
    const std::string takes = variant.keys.empty() ? "no parameters" : join(variant.keys);
    return fmt::format("'{}' is not a parameter of {} '{}'; {} takes {}", key, table.noun, chosen,
                       chosen, takes);
  });
  for (std::string_view key : variant.required) map.require(key, type_of(key));
}

std::vector<KeyDoc> documented_keys() {
  std::vector<KeyDoc> keys;
  add_docs(keys, "", experiment_fields());
  add_docs(keys, "topology.", topology_fields());
  add_docs(keys, "topology.switches[].", explicit_switch_fields());
  add_docs(keys, "topology.links[].", explicit_link_fields());
  add_docs(keys, "links.", link_fields());
  add_docs(keys, "buffer.", buffer_fields());
  add_docs(keys, "buffer.pfc.", pfc_fields());
  add_docs(keys, "buffer.credit.", credit_fields());
  add_docs(keys, "load_balancer.", balancer_fields());
  keys.push_back({"load_balancer.layers", "map of level to balancer", "none",
                  "per switch level: algorithm and parameters, inheriting the top level's"});
  keys.push_back({"load_balancer.switches", "map of switch name to balancer", "none",
                  "per switch: algorithm and parameters, inheriting the top level's"});
  keys.push_back({"load_balancer.upgrade", "balancer with strategy, fraction", "none",
                  "incremental deployment: a share of the edge and aggregation switches runs "
                  "this balancer"});
  add_docs(keys, "workload.", workload_fields());
  add_docs(keys, "measurement.", measurement_fields());
  add_docs(keys, "events.", events_fields());
  add_docs(keys, "events.links[].", link_event_fields());
  return keys;
}

}  // namespace spraylab::conf

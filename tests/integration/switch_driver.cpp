// The switch integration tests' traffic source and sink: one DPDK process whose port i is wired
// (memif) to the switch's port i. It sends a known set of packets into one host port of the
// switch and receives on every port, checking each packet's headers, then prints JSON:
//   {"sent": N, "received": {"port": count}, "per_dest": {...}, "bad_headers": n, ...}
// Modes: "spread" (to hosts under other leaves: the balancer chooses), "local" (to hosts on the
// same switch), "malformed" (frames the switch must count and drop), "stream" (see run_stream).
#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "conf/guarded_main.h"
#include "conf/loader.h"
#include "net/frame.h"
#include "net/ports.h"
#include "tests/integration/test_frames.h"
#include "topo/addressing.h"
#include "topo/build.h"

namespace {

using namespace spraylab;

using spraylab::testing::ip_checksum;
using spraylab::testing::udp_frame;

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

struct StreamOptions {
  std::vector<uint16_t> attach;  // switch port of each of this driver's DPDK ports
  uint16_t from_port = 0;        // a switch port in `attach`
  uint32_t flows = 16, payload = 64;
  double rate_pps = 0;    // 0: as fast as the link takes
  uint32_t idle_us = 0;   // sleep between turns (a peer that is not busy-polling)
  double duration_s = 0;  // 0: until SIGINT / SIGTERM
};

// "stream": sends into switch port `from_port` without end (to the hosts under other leaves when
// that port faces a host, else to this switch's hosts), and drains every attached port, until
// stopped; then prints {"sent": n, "received": {switch port: n}}. The peer-kill test runs one
// per surviving and per victim port; a link that goes away (the switch killed) just stops
// taking frames until it is back.
int run_stream(const topo::Topology& t, const topo::AddressPlan& plan, topo::NodeId me,
               uint32_t my_leaf, const StreamOptions& so, rte_mempool* pool) {
  const auto it = std::find(so.attach.begin(), so.attach.end(), so.from_port);
  if (it == so.attach.end()) throw std::invalid_argument("--from-port is not an attached port");
  const auto tx_port = static_cast<uint16_t>(it - so.attach.begin());
  const topo::PortRef src = t.peer(me, static_cast<topo::PortId>(so.from_port));
  const bool from_host = t.node(src.node).kind == topo::NodeKind::kHost;
  std::vector<std::vector<uint8_t>> frames;
  const topo::Mac to_switch =
      topo::AddressPlan::port_mac(me, static_cast<topo::PortId>(so.from_port));
  std::vector<topo::NodeId> dests, others;
  for (topo::NodeId h : t.hosts()) {
    (plan.leaf_of_host(h) == my_leaf ? dests : others).push_back(h);
  }
  if (from_host) std::swap(dests, others);
  // From a spine port: the source is a host under another leaf.
  const topo::NodeId src_host = from_host ? src.node : others.front();
  for (uint32_t i = 0; i < std::max<uint32_t>(so.flows, dests.size()); ++i) {
    const topo::NodeId d = dests[i % dests.size()];
    if (d == src_host) continue;
    frames.push_back(udp_frame(to_switch, topo::AddressPlan::host_mac(src_host),
                               plan.host_ip(src_host), plan.host_ip(d),
                               static_cast<uint16_t>(10000 + i % so.flows), i, so.payload, 64));
  }
  const uint64_t hz = rte_get_tsc_hz();
  const uint64_t gap = so.rate_pps > 0 ? static_cast<uint64_t>(hz / so.rate_pps) : 0;
  const uint64_t end =
      so.duration_s > 0 ? rte_rdtsc() + static_cast<uint64_t>(so.duration_s * hz) : UINT64_MAX;
  std::vector<uint64_t> received(so.attach.size(), 0);
  uint64_t sent = 0, next_send = rte_rdtsc();
  rte_mbuf* burst[32];
  while (!g_stop.load(std::memory_order_relaxed) && rte_rdtsc() < end) {
    for (uint16_t p = 0; p < so.attach.size(); ++p) {
      uint16_t n;
      do {
        n = rte_eth_rx_burst(p, 0, burst, 32);
        received[p] += n;
        rte_pktmbuf_free_bulk(burst, n);
      } while (n == 32);
    }
    uint16_t want = 32;
    if (gap) {
      const uint64_t now = rte_rdtsc();
      want = now < next_send
                 ? 0
                 : static_cast<uint16_t>(std::min<uint64_t>(32, (now - next_send) / gap + 1));
    }
    if (want > 0 && rte_pktmbuf_alloc_bulk(pool, burst, want) == 0) {
      for (uint16_t i = 0; i < want; ++i) {
        const auto& f = frames[(sent + i) % frames.size()];
        std::memcpy(rte_pktmbuf_append(burst[i], static_cast<uint16_t>(f.size())), f.data(),
                    f.size());
      }
      const uint16_t ok = rte_eth_tx_burst(tx_port, 0, burst, want);
      rte_pktmbuf_free_bulk(burst + ok, want - ok);
      sent += ok;
      next_send += ok * gap;
      if (gap && ok < want) next_send = std::max(next_send, rte_rdtsc());  // no catch-up burst
    }
    if (so.idle_us) std::this_thread::sleep_for(std::chrono::microseconds(so.idle_us));
  }
  nlohmann::ordered_json j;
  j["sent"] = sent;
  for (size_t p = 0; p < received.size(); ++p)
    j["received"][std::to_string(so.attach[p])] = received[p];
  fmt::print("{}\n", j.dump());
  std::fflush(stdout);
  return 0;
}

int run(int argc, char** argv) {
  // A test program never probes PCI: the machine's own NIC must stay with the kernel.
  if (!net::pci_probing_limited(argc, argv)) {
    fmt::print(stderr, "driver: pass --no-pci (or an -a allow-list) to EAL\n");
    return 2;
  }
  const int eal = rte_eal_init(argc, argv);
  if (eal < 0) {
    fmt::print(stderr, "driver: EAL init failed\n");
    return 2;
  }
  argc -= eal;
  argv += eal;
  argv[0] = const_cast<char*>("switch_driver");
  std::string config, sw;
  uint32_t packets = 1000, flows = 16, payload = 64, from_port = 0;
  uint32_t window = 0;
  double rate_pps = 0, timeout_s = 5;
  uint16_t queues = 1;
  CLI::App app{"switch integration driver"};
  app.add_option("--config", config)->required();
  app.add_option("--switch", sw)->required();
  std::vector<std::string> modes = {"spread"};
  bool hold = false;
  StreamOptions so;
  app.add_option("--mode", modes,
                 "spread, local, malformed (several run one after another), or stream alone")
      ->delimiter(',')
      ->check(CLI::IsMember({"spread", "local", "malformed", "stream"}));
  app.add_option(
         "--attach", so.attach,
         "stream: the switch port of each DPDK port of this driver (default: all, in order)")
      ->delimiter(',');
  app.add_option("--idle-us", so.idle_us, "stream: sleep between turns (not a busy poller)");
  app.add_option("--duration", so.duration_s, "stream: seconds (default: until SIGINT/SIGTERM)");
  app.add_flag("--hold", hold,
               "After printing the results keep the ports open until standard input closes, so the "
               "switch is stopped before its memif peer disconnects");
  app.add_option("--packets", packets);
  app.add_option("--flows", flows);
  app.add_option("--payload", payload);
  app.add_option("--from-port", from_port);
  app.add_option("--rate", rate_pps, "packets per second (0 = as fast as possible)");
  app.add_option("--window", window,
                 "at most this many frames in flight (sent, not yet received back; 0 = no limit): "
                 "with a window below every ring's size no ring can overflow, however the "
                 "processes are scheduled");
  app.add_option("--timeout", timeout_s);
  app.add_option("--queues", queues, "tx/rx queues per port (the switch polls one per worker)");
  CLI11_PARSE(app, argc, argv);

  conf::Experiment exp = conf::load_experiment_file(config);
  topo::Topology t = topo::build(exp.topology, exp.links);
  topo::Routing r(t);
  topo::AddressPlan plan(r);
  const topo::NodeId me = t.find(sw);
  const bool stream = modes == std::vector<std::string>{"stream"};
  if (!stream && std::find(modes.begin(), modes.end(), "stream") != modes.end())
    throw std::invalid_argument("--mode stream runs alone");
  if (!stream && !so.attach.empty()) throw std::invalid_argument("--attach is for --mode stream");
  if (so.attach.empty()) {
    for (uint16_t p = 0; p < t.degree(me); ++p) so.attach.push_back(p);
  }
  const uint16_t nports = static_cast<uint16_t>(so.attach.size());
  const topo::NodeId src_host = t.peer(me, static_cast<topo::PortId>(from_port)).node;
  const uint32_t my_leaf = r.graph().index_of(me);

  net::PortSetup setup;
  setup.rx_queues = setup.tx_queues = queues;
  rte_mempool* pool = nullptr;
  auto ports = net::start_ports(nports, setup, &pool);
  // Wait for every memif link to connect.
  const uint64_t hz = rte_get_tsc_hz();
  bool all_up = false;
  for (uint64_t end = rte_rdtsc() + 30 * hz; rte_rdtsc() < end && !all_up;) {
    all_up = true;
    for (uint16_t p = 0; p < nports; ++p) all_up = all_up && net::link_up(p);
    if (!all_up) rte_delay_ms(10);
  }
  if (!all_up)
    throw std::runtime_error("memif links did not come up within 30 s: is the switch running?");
  // The switch sees its links come up on its control thread's next poll (every 100 us), which
  // with more than one worker shares CPU 0 with this busy driver; frames sent before that poll
  // are counted as port-down drops. A moment's grace keeps the test from racing it.
  rte_delay_ms(50);
  if (stream) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    so.from_port = static_cast<uint16_t>(from_port);
    so.flows = flows;
    so.payload = payload;
    so.rate_pps = rate_pps;
    const int rc = run_stream(t, plan, me, my_leaf, so, pool);
    net::stop_ports(ports);
    rte_eal_cleanup();
    return rc;
  }

  nlohmann::ordered_json all_results;
  for (const std::string& mode : modes) {
    // Destinations.
    std::vector<topo::NodeId> dests;
    for (topo::NodeId h : t.hosts()) {
      const bool local = plan.leaf_of_host(h) == my_leaf;
      if (h == src_host) continue;
      if ((mode == "local") == local) dests.push_back(h);
    }
    std::vector<std::vector<uint8_t>> frames;
    const topo::Mac to_switch =
        topo::AddressPlan::port_mac(me, static_cast<topo::PortId>(from_port));
    const topo::Mac src_mac = topo::AddressPlan::host_mac(src_host);
    const uint32_t src_ip = plan.host_ip(src_host);
    if (mode == "malformed") {
      auto good =
          udp_frame(to_switch, src_mac, src_ip, plan.host_ip(t.hosts().back()), 1000, 0, 64, 64);
      auto truncated = good;
      truncated.resize(30);
      auto arp = good;
      arp[13] = 0x06;
      auto bad_ihl = good;
      bad_ihl[14] = 0x43;
      auto ttl0 =
          udp_frame(to_switch, src_mac, src_ip, plan.host_ip(t.hosts().back()), 1000, 0, 64, 0);
      auto unknown =
          udp_frame(to_switch, src_mac, src_ip, 0xc0a80001, 1000, 0, 64, 64);  // 192.168.0.1
      for (uint32_t i = 0; i < packets; ++i) {
        for (auto* f : {&truncated, &arp, &bad_ihl, &ttl0, &unknown}) frames.push_back(*f);
      }
    } else {
      for (uint32_t i = 0; i < packets; ++i) {
        const topo::NodeId d = dests[i % dests.size()];
        frames.push_back(udp_frame(to_switch, src_mac, src_ip, plan.host_ip(d),
                                   static_cast<uint16_t>(10000 + i % flows), i, payload, 64));
      }
    }

    // Send, paced if asked, while receiving.
    std::map<uint16_t, uint64_t> received;
    std::map<std::string, std::map<uint16_t, uint64_t>> per_dest;
    uint64_t bad = 0, got = 0, sent = 0;
    const uint64_t gap = rate_pps > 0 ? static_cast<uint64_t>(hz / rate_pps) : 0;
    uint64_t next_send = rte_rdtsc();
    rte_mbuf* rx[32];
    auto receive = [&] {
      for (uint16_t p = 0; p < nports; ++p) {
        for (uint16_t q = 0; q < queues; ++q) {
          const uint16_t n = rte_eth_rx_burst(p, q, rx, 32);
          for (uint16_t i = 0; i < n; ++i) {
            const uint8_t* d = rte_pktmbuf_mtod(rx[i], const uint8_t*);
            const uint32_t len = rte_pktmbuf_data_len(rx[i]);
            net::FrameInfo info{};
            const topo::PortRef far = t.peer(me, p);
            const topo::Mac want_dst = t.node(far.node).kind == topo::NodeKind::kHost
                                           ? topo::AddressPlan::host_mac(far.node)
                                           : topo::AddressPlan::port_mac(far.node, far.port);
            const topo::Mac want_src = topo::AddressPlan::port_mac(me, p);
            const bool ok = net::parse_frame(d, len, info) == net::FrameError::kNone &&
                            std::memcmp(d, want_dst.data(), 6) == 0 &&
                            std::memcmp(d + 6, want_src.data(), 6) == 0 && info.ttl == 63 &&
                            ip_checksum(d + 14, 20) == 0 && info.src_ip == src_ip;
            if (!ok) ++bad;
            ++received[p];
            per_dest[topo::ip_to_string(info.dst_ip)][p]++;
            ++got;
            rte_pktmbuf_free(rx[i]);
          }
        }
      }
    };
    // Malformed frames never come back: a window would stop the sender at once.
    const bool expect_back = mode != "malformed";
    const uint64_t send_deadline = rte_rdtsc() + static_cast<uint64_t>((timeout_s + 30) * hz);
    while (sent < frames.size()) {
      if (rte_rdtsc() > send_deadline)
        throw std::runtime_error(
            fmt::format("could only send {} of {} frames", sent, frames.size()));
      const bool window_full = window && expect_back && sent - got >= window;
      if (window_full || (gap && rte_rdtsc() < next_send)) {
        receive();
        continue;
      }
      rte_mbuf* m = rte_pktmbuf_alloc(pool);
      if (m == nullptr) {
        receive();
        continue;
      }
      const auto& f = frames[sent];
      std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
      // Alternate tx queues so that every switch worker polls some of this traffic.
      if (rte_eth_tx_burst(static_cast<uint16_t>(from_port), static_cast<uint16_t>(sent % queues),
                           &m, 1) == 1) {
        ++sent;
        next_send += gap;
      } else {
        rte_pktmbuf_free(m);
      }
      if ((sent & 15) == 0) receive();
    }
    const uint64_t expect = mode == "malformed" ? 0 : sent;
    for (uint64_t end = rte_rdtsc() + static_cast<uint64_t>(timeout_s * hz); rte_rdtsc() < end;) {
      receive();
      if (expect && got >= expect) break;
    }
    // A short grace period catches duplicates or strays.
    for (uint64_t end = rte_rdtsc() + hz / 5; rte_rdtsc() < end;) receive();

    nlohmann::ordered_json j;
    j["mode"] = mode;
    j["sent"] = sent;
    j["received_total"] = got;
    j["bad_headers"] = bad;
    for (auto& [p, n] : received) j["received"][std::to_string(p)] = n;
    for (auto& [d, m] : per_dest) {
      for (auto& [p, n] : m) j["per_dest"][d][std::to_string(p)] = n;
    }
    all_results[mode] = j;
  }
  fmt::print("{}\n", all_results.dump());
  std::fflush(stdout);
  if (hold) {
    char buf[64];
    while (std::fread(buf, 1, sizeof buf, stdin) > 0) {
    }
  }
  net::stop_ports(ports);
  rte_eal_cleanup();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("driver", [&] { return run(argc, argv); });
}

// The fabric's side of the "same code" test (tests/integration/fabric_same_code_test.py): builds
// the in-process fabric of an experiment, feeds one switch of it the frames switch_driver sends
// the standalone spraylab-switch (tests/integration/test_frames.h, same order), through the
// fabric's own link into the port switch_driver uses, and counts what leaves on each port, as
// switch_driver does. Prints {"spread": {"sent", "received_total", "received", "per_dest"}}.
//   fabric_switch_probe --config FILE --switch NAME [--packets N] [--flows F] [--payload B]
//                       [--from-port P] [--seed S]
#include <fmt/format.h>
#include <rte_mbuf.h>

#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "conf/guarded_main.h"
#include "conf/loader.h"
#include "fabric/emu/eal.h"
#include "fabric/emu/fabric.h"
#include "net/frame.h"
#include "tests/integration/test_frames.h"
#include "topo/build.h"

namespace {

using namespace spraylab;

int run(int argc, char** argv) {
  std::string config, sw;
  uint32_t packets = 1000, flows = 16, payload = 64, from_port = 0;
  int64_t seed = -1;
  CLI::App app{"fabric_switch_probe: one switch of the in-process fabric, fed known frames"};
  app.add_option("--config", config)->required();
  app.add_option("--switch", sw)->required();
  app.add_option("--packets", packets);
  app.add_option("--flows", flows);
  app.add_option("--payload", payload);
  app.add_option("--from-port", from_port);
  app.add_option("--seed", seed, "replace the experiment's seed (a negative control)");
  CLI11_PARSE(app, argc, argv);

  conf::Experiment exp = conf::load_experiment_file(config);
  if (seed >= 0) exp.seed = static_cast<uint64_t>(seed);
  fabric::EalOptions eo;
  eo.memory_mb = fabric::fabric_memory_mb(exp);
  fabric::init_eal(eo, "fabric_switch_probe");
  fabric::Fabric f(exp, fabric::Mode::kInProcess, 0);
  fabric::SwitchNode* node = nullptr;
  for (const auto& s : f.switches()) {
    if (s->runtime().tables().name == sw) node = s.get();
  }
  if (node == nullptr) throw std::invalid_argument("no switch " + sw);

  // The frames, as switch_driver's "spread" mode builds them.
  const topo::Topology& t = f.topology();
  const topo::Routing r(t);
  const topo::AddressPlan plan(r);
  const topo::NodeId me = t.find(sw);
  const topo::NodeId src_host = t.peer(me, static_cast<topo::PortId>(from_port)).node;
  const uint32_t my_leaf = r.graph().index_of(me);
  std::vector<topo::NodeId> dests;
  for (topo::NodeId h : t.hosts()) {
    if (h != src_host && plan.leaf_of_host(h) != my_leaf) dests.push_back(h);
  }
  const topo::Mac to_switch = topo::AddressPlan::port_mac(me, static_cast<topo::PortId>(from_port));
  const topo::Mac src_mac = topo::AddressPlan::host_mac(src_host);
  const uint32_t src_ip = plan.host_ip(src_host);

  std::map<uint16_t, uint64_t> received;
  std::map<std::string, std::map<uint16_t, uint64_t>> per_dest;
  uint64_t got = 0;
  const uint16_t ports = node->runtime().ports();
  uint64_t now = 1'000'000'000;
  auto step = [&] {
    // Far enough on for everything sent to have arrived and be let out by the shapers.
    now += 1'000'000;
    node->poll(now, now);
    rte_mbuf* burst[32];
    for (uint16_t p = 0; p < ports; ++p) {
      while (const uint16_t n = node->out_link(p)->receive(burst, 32, now + 1'000'000)) {
        for (uint16_t i = 0; i < n; ++i) {
          net::FrameInfo info{};
          net::parse_frame(rte_pktmbuf_mtod(burst[i], const uint8_t*),
                           rte_pktmbuf_data_len(burst[i]), info);
          ++received[p];
          ++per_dest[topo::ip_to_string(info.dst_ip)][p];
          ++got;
        }
        rte_pktmbuf_free_bulk(burst, n);
      }
    }
  };
  fabric::Link* in = node->in_link(static_cast<uint16_t>(from_port));
  for (uint32_t i = 0; i < packets; ++i) {
    const topo::NodeId d = dests[i % dests.size()];
    const auto bytes = testing::udp_frame(to_switch, src_mac, src_ip, plan.host_ip(d),
                                          static_cast<uint16_t>(10000 + i % flows), i, payload, 64);
    rte_mbuf* m = rte_pktmbuf_alloc(f.pool());
    if (m == nullptr) throw std::runtime_error("mempool empty");
    std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(bytes.size())), bytes.data(),
                bytes.size());
    while (in->send(&m, 1, now) == 0) step();
    if (i % 16 == 15) step();
  }
  for (int i = 0; i < 100 && got < packets; ++i) step();

  nlohmann::ordered_json j;
  j["mode"] = "spread";
  j["sent"] = packets;
  j["received_total"] = got;
  for (auto& [p, n] : received) j["received"][std::to_string(p)] = n;
  for (auto& [d, m] : per_dest) {
    for (auto& [p, n] : m) j["per_dest"][d][std::to_string(p)] = n;
  }
  fmt::print("{}\n", nlohmann::ordered_json{{"spread", j}}.dump());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("fabric_switch_probe", [&] { return run(argc, argv); });
}

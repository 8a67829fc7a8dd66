#include <gtest/gtest.h>

#include <set>

#include "topo/addressing.h"
#include "topo/generators.h"

namespace spraylab::topo {
namespace {

TEST(AddressPlan, ThreeLevelFatTreeHostsSitInTheirLeafAndPodPrefixes) {
  Topology t = fat_tree({.k = 4, .levels = 3, .link = {}});
  Routing r(t);
  AddressPlan plan(r);
  ASSERT_TRUE(plan.has_pods());
  std::set<uint32_t> ips;
  for (NodeId h : t.hosts()) {
    const uint32_t ip = plan.host_ip(h);
    EXPECT_TRUE(ips.insert(ip).second) << "duplicate " << ip_to_string(ip);
    const uint32_t leaf = plan.leaf_of_host(h);
    Prefix lp = plan.leaf_prefix(leaf);
    EXPECT_EQ(ip >> 8, lp.addr >> 8);
    Prefix pp = plan.pod_prefix(t.node(h).pod);
    EXPECT_EQ(ip >> 16, pp.addr >> 16) << t.node(h).name;
  }
  // h0..h1 on edge0 (pod 0), h2..h3 on edge1 (pod 0), h4 on edge2 (pod 1).
  EXPECT_EQ(ip_to_string(plan.host_ip(t.find("h0"))), "10.0.0.1");
  EXPECT_EQ(ip_to_string(plan.host_ip(t.find("h3"))), "10.0.1.2");
  EXPECT_EQ(ip_to_string(plan.host_ip(t.find("h4"))), "10.1.0.1");
}

TEST(AddressPlan, LeafSpineGivesOneSlash24PerLeafBeyond256Leaves) {
  MrlsParams p;
  p.leaves = 300;
  p.uplinks = 2;
  p.downlinks = 1;
  p.check_corners = false;
  Topology t = mrls(p);
  Routing r(t);
  AddressPlan plan(r);
  EXPECT_FALSE(plan.has_pods());
  EXPECT_EQ(ip_to_string(plan.host_ip(t.find("h299"))), "10.1.43.1");  // leaf rank 299
}

TEST(AddressPlan, MacsAreLocallyAdministeredUnicastAndDistinct) {
  Mac h = AddressPlan::host_mac(7), s = AddressPlan::port_mac(7, 3);
  EXPECT_EQ(h[0] & 0x03, 0x02);
  EXPECT_EQ(s[0] & 0x03, 0x02);
  EXPECT_NE(h, s);
  EXPECT_NE(AddressPlan::port_mac(7, 3), AddressPlan::port_mac(7, 4));
  EXPECT_EQ(mac_to_string(s), "06:00:00:07:00:03");
}

}  // namespace
}  // namespace spraylab::topo

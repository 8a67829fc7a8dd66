// Issue 40: a ring's first slots are packed with other rings' on the fabric's RingArena
// (switch/dataplane/ring_slots.h), so a ring that never holds many frames at once costs a share
// of a page, not a page; and the two pieces of a ring behave as one ring.
#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "fabric/emu/link.h"
#include "fabric/emu/ring_arena.h"
#include "switch/dataplane/ring_slots.h"

namespace spraylab::fabric {
namespace {

constexpr size_t kPage = 4096;

rte_mempool* test_pool() {
  static rte_mempool* pool = rte_pktmbuf_pool_create("ring_arena_test", 8191, 0, 0,
                                                     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  return pool;
}

std::vector<rte_mbuf*> frames(uint32_t n) {
  std::vector<rte_mbuf*> v(n);
  EXPECT_EQ(rte_pktmbuf_alloc_bulk(test_pool(), v.data(), n), 0);
  for (rte_mbuf* m : v) {
    m->data_len = 64;
    m->pkt_len = 64;
  }
  return v;
}

TEST(RingArena, PacksTheHotPiecesOfRingsIntoSharedPages) {
  RingArena arena;
  const dataplane::RingMemory memory = arena.memory();
  std::vector<dataplane::SlotPieces> rings;
  for (int i = 0; i < 16; ++i) {
    rings.push_back(dataplane::allocate_slots(4096, memory, SOCKET_ID_ANY, "r"));
  }
  const size_t hot = dataplane::kHotSlots * sizeof(rte_mbuf*);
  for (size_t i = 1; i < rings.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(rings[i].hot) - reinterpret_cast<uintptr_t>(rings[0].hot),
              i * hot)
        << "ring " << i << "'s hot piece is not beside the others";
    EXPECT_FALSE(rings[i].owned);
  }
  // The first page holds the hot pieces of kPage / hot rings, and no ring's rest.
  const auto first = reinterpret_cast<uintptr_t>(rings[0].hot);
  for (const auto& r : rings) {
    const auto rest = reinterpret_cast<uintptr_t>(r.rest);
    EXPECT_TRUE(rest + (4096 - dataplane::kHotSlots) * sizeof(rte_mbuf*) <= first ||
                rest >= first + rings.size() * hot)
        << "a ring's rest lies among the hot pieces";
  }
}

TEST(RingArena, RingsThatStayShallowMakeOnlyTheirHotPiecesResident) {
  // 64 link directions of 1024 slots (as the fabric's) in virtual time, each carrying 10 000
  // frames up to 40 at a time (a link empties, then starts again at slot 0): 64 x 512 B of hot
  // pieces, 8 pages. A piece of 8 KB per ring, as before, made 64 pages resident.
  RingArena arena;
  EventQueue events;
  std::vector<std::unique_ptr<Link>> links;
  for (uint32_t i = 0; i < 64; ++i) {
    links.push_back(std::make_unique<Link>("l", 800e9, 500, 1024, arena.memory()));
    links.back()->set_consumer(&events, i, 0);
  }
  std::vector<rte_mbuf*> got(64);
  uint64_t now = 1;
  for (int round = 0; round < 250; ++round) {
    for (auto& l : links) {
      std::vector<rte_mbuf*> f = frames(40);
      ASSERT_EQ(l->send(f.data(), 40, now), 40);
    }
    now += 10'000;
    for (auto& l : links) {
      uint16_t n = 0;
      while (n < 40) n = static_cast<uint16_t>(n + l->receive(got.data() + n, 64 - n, now));
      rte_pktmbuf_free_bulk(got.data(), n);
    }
  }
  EXPECT_LE(arena.resident(), 64 * dataplane::kHotSlots * sizeof(rte_mbuf*) + kPage);
}

TEST(RingArena, RingsFilledPastTheirHotPieceKeepTheirOwnFramesInOrder) {
  // Two links on one arena, each holding up to 900 frames at once and wrapping its 1024 slots
  // several times: every slot of both pieces is used, the two rings side by side.
  RingArena arena;
  Link a("a", 800e9, 500, 1024, arena.memory());
  Link b("b", 800e9, 500, 1024, arena.memory());
  std::vector<rte_mbuf*> got(64);
  uint64_t now = 1;
  for (int round = 0; round < 6; ++round) {
    std::vector<rte_mbuf*> fa = frames(900), fb = frames(900);
    for (uint32_t i = 0; i < 900; i += 30) {
      ASSERT_EQ(a.send(fa.data() + i, 30, now), 30);
      ASSERT_EQ(b.send(fb.data() + i, 30, now), 30);
    }
    now += 1'000'000;
    for (auto [link, sent] : {std::pair{&a, &fa}, std::pair{&b, &fb}}) {
      uint32_t k = 0;
      while (k < 900) {
        const uint16_t n = link->receive(got.data(), 64, now);
        ASSERT_GT(n, 0) << "frames lost at " << k;
        for (uint16_t i = 0; i < n; ++i, ++k) ASSERT_EQ(got[i], (*sent)[k]) << "frame " << k;
      }
      rte_pktmbuf_free_bulk(sent->data(), 900);
    }
  }
}

}  // namespace
}  // namespace spraylab::fabric

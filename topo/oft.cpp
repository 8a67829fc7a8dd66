// Orthogonal Fat Tree, 2 levels (Valerio, Moser and Melliar-Smith; MRLS paper §1, Figure 1 and
// Table 2: OFT(36, 11052), q = 17), built as CAMINOS's OFT{height: 1} builds it (Camarero et al.,
// "Projective networks"): the spines are the lines of the projective plane PG(2, q), the leaves
// are its points taken twice, and a leaf links to the q + 1 lines through its point. Two distinct
// points share exactly one line, so any two leaves are two hops apart.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topo/generator_steps.h"
#include "topo/generators.h"
#include "topo/palm_tree.h"

namespace spraylab::topo {
namespace {

using Vec3 = std::array<uint64_t, 3>;

uint64_t inverse(uint64_t x, uint64_t q) {  // x^(q−2) mod q, q prime, x ≠ 0
  uint64_t result = 1, base = x % q;
  for (uint64_t e = q - 2; e > 0; e >>= 1, base = base * base % q) {
    if (e & 1) result = result * base % q;
  }
  return result;
}

// The projective plane over the integers mod a prime q. A point (and, the plane being self-dual,
// a line) is a nonzero vector up to scaling, numbered by its normal form (first nonzero
// coordinate 1): (1, b, c) → b·q + c, (0, 1, c) → q² + c, (0, 0, 1) → q² + q. Point x lies on
// line y when x·y ≡ 0 (mod q).
class ProjectivePlane {
 public:
  explicit ProjectivePlane(uint64_t q) : q_(q) {}
  uint64_t size() const { return q_ * q_ + q_ + 1; }

  Vec3 vector_of(uint64_t i) const {
    if (i < q_ * q_) return {1, i / q_, i % q_};
    if (i < q_ * q_ + q_) return {0, 1, i - q_ * q_};
    return {0, 0, 1};
  }
  uint64_t index_of(Vec3 v) const {
    size_t first = 0;
    while (v[first] % q_ == 0) ++first;  // v ≠ 0
    const uint64_t scale = inverse(v[first], q_);
    for (auto& x : v) x = x * scale % q_;
    if (first == 0) return v[1] * q_ + v[2];
    if (first == 1) return q_ * q_ + v[2];
    return q_ * q_ + q_;
  }
  // The q + 1 lines through point i, ascending. They form the 2-dimensional space orthogonal to
  // the point x: with x's first nonzero coordinate f (= 1), u = e_j − x_j·e_f and v = e_k − x_k·e_f
  // span it, and its projective points are u and v + t·u for t in 0 .. q − 1.
  std::vector<uint64_t> lines_through(uint64_t i) const {
    const Vec3 x = vector_of(i);
    const size_t f = x[0] != 0 ? 0 : x[1] != 0 ? 1 : 2;
    const size_t j = (f + 1) % 3, k = (f + 2) % 3;
    Vec3 u{}, v{};
    u[j] = 1;
    u[f] = (q_ - x[j]) % q_;
    v[k] = 1;
    v[f] = (q_ - x[k]) % q_;
    std::vector<uint64_t> out{index_of(u)};
    for (uint64_t t = 0; t < q_; ++t) {
      Vec3 w;
      for (size_t c = 0; c < 3; ++c) w[c] = (v[c] + t * u[c]) % q_;
      out.push_back(index_of(w));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  uint64_t q_;
};

}  // namespace

Topology oft(const OftParams& p) {
  using namespace generator_steps;
  if (!is_prime(p.q)) {
    throw TopologyError(fmt::format(
        "oft: q = {} is not prime; the projective plane is built over the integers mod q, which "
        "is a field only for a prime q (prime powers such as 4, 8 or 9 need a field extension, "
        "not implemented)",
        p.q));
  }
  if (p.hosts_per_leaf == 0) throw TopologyError("oft: hosts_per_leaf must be at least 1, got 0");
  check_size("oft", oft_size(p.q, p.hosts_per_leaf));
  const ProjectivePlane plane(p.q);
  const auto points = static_cast<uint32_t>(plane.size());

  Topology t;
  t.kind = Kind::kOft;
  std::vector<NodeId> leaves, spines;
  for (uint32_t i = 0; i < 2 * points; ++i) leaves.push_back(t.add_switch(0, i, name("leaf", i)));
  for (uint32_t i = 0; i < points; ++i) spines.push_back(t.add_switch(1, i, name("spine", i)));
  for (NodeId leaf : leaves) add_hosts(t, leaf, p.hosts_per_leaf, 0, p.link);
  // Leaf i and leaf points + i stand for point i; a spine's down ports go by leaf.
  for (uint32_t i = 0; i < 2 * points; ++i) {
    for (uint64_t line : plane.lines_through(i % points)) {
      t.add_link(leaves[i], spines[line], p.link.rate_bps, p.link.delay_ns);
    }
  }
  return t;
}

}  // namespace spraylab::topo

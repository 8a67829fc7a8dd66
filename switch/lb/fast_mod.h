// x mod d without a division instruction, for Ofan's shared rotation pointers: every key a burst
// touches turns its 64-bit pointer into a position in its port order (pointer % order length),
// and a 64-bit `div` there cost Ofan about 2 cycles a packet in lb_bench (session 31; the null
// layout has 16 keys a burst of 32). Lemire, Kaser and Kurz's fastmod ("Faster remainder by direct
// computation", 2019): for 32-bit x and d, x mod d = ((M * x mod 2^64) * d) / 2^64 with
// M = ceil(2^64 / d), exactly. A pointer past 2^32 (about four billion packets to one key) and a
// divisor beyond the table take the division.
#pragma once

#include <array>
#include <cstdint>

namespace spraylab::lb {

// Divisors with a precomputed M: 1..kFastModDivisors (an order is at most a switch's ports).
inline constexpr uint32_t kFastModDivisors = 256;

namespace detail {

// M = ceil(2^64 / d) = floor((2^64 - 1) / d) + 1; 0 (2^64 mod 2^64) for d = 1, which gives 0.
constexpr std::array<uint64_t, kFastModDivisors + 1> fast_mod_table() {
  std::array<uint64_t, kFastModDivisors + 1> m{};
  for (uint32_t d = 1; d <= kFastModDivisors; ++d) m[d] = UINT64_MAX / d + 1;
  return m;
}
inline constexpr std::array<uint64_t, kFastModDivisors + 1> kFastModM = fast_mod_table();

}  // namespace detail

// x mod d, d > 0.
inline uint32_t fast_mod(uint64_t x, uint32_t d) {
  if ((x >> 32) != 0 || d > kFastModDivisors) return static_cast<uint32_t>(x % d);
  const uint64_t low = detail::kFastModM[d] * x;  // mod 2^64
  return static_cast<uint32_t>((static_cast<unsigned __int128>(low) * d) >> 64);
}

}  // namespace spraylab::lb

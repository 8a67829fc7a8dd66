#include "net/memif_redial.h"

#include <rte_ethdev.h>
#include <sys/stat.h>

namespace spraylab::net {
namespace {

// The socket file's identity (inode and change time), or 0 for none or an abstract socket. A killed
// server leaves its file behind and cannot bind over it: whoever restarts it removes the file, so
// the new server's file is a new file (the inode number alone may be reused at once on tmpfs).
// (Probing the server with a connection of our own instead is not an option: a memif server whose
// client hangs up before the handshake can panic DPDK 22.11's interrupt thread.)
uint64_t socket_identity(const std::string& path) {
  struct stat st {};
  if (path.empty() || path[0] == '\0' || stat(path.c_str(), &st) != 0) return 0;
  const uint64_t ctime_ns = static_cast<uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000u +
                            static_cast<uint64_t>(st.st_ctim.tv_nsec);
  const uint64_t id = static_cast<uint64_t>(st.st_ino) * 0x9E3779B97F4A7C15u ^ ctime_ns;
  return id == 0 ? 1 : id;
}

}  // namespace

MemifRedial::MemifRedial(const std::vector<PortState>& ports, std::chrono::milliseconds retry,
                         std::chrono::milliseconds settle)
    : retry_(retry), settle_(settle) {
  const auto now = std::chrono::steady_clock::now();
  for (const auto& p : ports) {
    if (p.memif_client) {
      clients_.push_back({p.port_id, p.memif_socket, socket_identity(p.memif_socket), true, now});
    }
  }
}

bool MemifRedial::down(const Client& c) const {
  if (!link_up(c.port)) return true;
  c.awaiting = false;
  return false;
}

// A client port that is down and last dialled `retry` ago (a handshake takes a few
// interrupt-thread turns) is dialled now if its last start failed, or if its socket file is not
// the one it dialled last (the server that went away cannot be back while its file is that one),
// or if it is the same file but that dial has not brought the link up in `settle` (a server not
// started yet).
bool MemifRedial::due(const Client& c, std::chrono::steady_clock::time_point now,
                      uint64_t id) const {
  if (c.awaiting && id != 0 && now - c.last_dial >= settle_) return true;
  return !c.started || (id == 0 ? c.socket.empty() || c.socket[0] == '\0' : id != c.dialled);
}

bool MemifRedial::wants_turn() const {
  const auto now = std::chrono::steady_clock::now();
  for (const Client& c : clients_) {
    if (down(c) && now - c.last_dial >= retry_ && due(c, now, socket_identity(c.socket)))
      return true;
  }
  return false;
}

void MemifRedial::on_turn() {
  const auto now = std::chrono::steady_clock::now();
  for (Client& c : clients_) {
    if (!down(c) || now - c.last_dial < retry_) continue;
    const uint64_t id = socket_identity(c.socket);
    if (!due(c, now, id)) continue;
    c.dialled = id;
    c.last_dial = now;
    c.awaiting = true;
    if (c.started) rte_eth_dev_stop(c.port);
    // Fails only if the server went away again since the probe: the next turn tries again.
    c.started = rte_eth_dev_start(c.port) == 0;
  }
}

}  // namespace spraylab::net

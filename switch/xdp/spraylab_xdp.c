// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// spraylab_xdp: the XDP program spraylab-switch's net_af_xdp ports run (docs/switch-ports.md).
//
// It hands the testbed's traffic to the switch's AF_XDP socket and everything else to the kernel,
// so that a NIC or veth given to the switch keeps its ARP, ssh, IPv6, DHCP... A frame is testbed
// traffic when all of these hold:
//   - Ethernet II carrying IPv4 (no VLAN tag), IHL >= 5, and not a non-first fragment;
//   - IP protocol UDP;
//   - IPv4 destination inside SPRAYLAB_XDP_DST_NET / SPRAYLAB_XDP_DST_LEN (default 10.0.0.0/8,
//     every host address of the topology's address plan; LEN 0 takes any destination);
//   - UDP destination port SPRAYLAB_XDP_UDP_PORT (default 4791, the testbed header's RoCEv2
//     port; 0 takes any port).
// A MAC control frame (EtherType 0x8808: an 802.1Qbb PFC pause from the port's link peer,
// buffer.flow_control: pfc) goes there too: it is link-local (01:80:C2:00:00:01, which a bridge
// never forwards and a veth passes as any frame), and the kernel, which has no use for it on a
// veth, would drop it, so the switch or generator polling the socket would never see the pause.
// Such frames go to the AF_XDP socket bound to the frame's rx queue (map xsks_map, key = rx queue
// index, as DPDK 22.11's net_af_xdp fills it for a program given with xdp_prog=); a queue without
// a socket, and every other frame, gets XDP_PASS.
//
// The rule is fixed when the object is built: rebuild with -DSPRAYLAB_XDP_DST_NET=0xC0A80000
// -DSPRAYLAB_XDP_DST_LEN=16 -DSPRAYLAB_XDP_UDP_PORT=0 (for example) to change it. The PMD loads
// the object itself, so a load-time setting would need a loader of our own.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef SPRAYLAB_XDP_DST_NET
#define SPRAYLAB_XDP_DST_NET 0x0A000000u  // 10.0.0.0
#endif
#ifndef SPRAYLAB_XDP_DST_LEN
#define SPRAYLAB_XDP_DST_LEN 8
#endif
#ifndef SPRAYLAB_XDP_UDP_PORT
#define SPRAYLAB_XDP_UDP_PORT 4791
#endif
#ifndef SPRAYLAB_XDP_MAX_QUEUES
#define SPRAYLAB_XDP_MAX_QUEUES 64
#endif

#if SPRAYLAB_XDP_DST_LEN < 0 || SPRAYLAB_XDP_DST_LEN > 32
#error "SPRAYLAB_XDP_DST_LEN must be 0..32"
#endif
#if SPRAYLAB_XDP_DST_LEN == 0
#define SPRAYLAB_XDP_DST_MASK 0u
#else
#define SPRAYLAB_XDP_DST_MASK (0xFFFFFFFFu << (32 - SPRAYLAB_XDP_DST_LEN))
#endif

// The name and layout net_af_xdp (DPDK 22.11, load_custom_xdp_prog) looks for: key = the
// device's rx queue index (start_queue + ethdev queue), value = the AF_XDP socket's fd.
struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, SPRAYLAB_XDP_MAX_QUEUES);
  __type(key, __u32);
  __type(value, __u32);
} xsks_map SEC(".maps");

static __always_inline int is_testbed(void *data, void *data_end) {
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end) return 0;
  if (eth->h_proto == bpf_htons(ETH_P_PAUSE)) return 1;  // MAC control (0x8808): PFC
  if (eth->h_proto != bpf_htons(ETH_P_IP)) return 0;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->version != 4 || ip->ihl < 5) return 0;
  if (ip->protocol != IPPROTO_UDP) return 0;
  if ((bpf_ntohl(ip->daddr) & SPRAYLAB_XDP_DST_MASK) != (SPRAYLAB_XDP_DST_NET & SPRAYLAB_XDP_DST_MASK))
    return 0;
  if (ip->frag_off & bpf_htons(0x1FFF)) return 0;  // a later fragment: no UDP header to check
  if (SPRAYLAB_XDP_UDP_PORT == 0) return 1;
  struct udphdr *udp = (void *)ip + ip->ihl * 4;
  if ((void *)(udp + 1) > data_end) return 0;
  return udp->dest == bpf_htons(SPRAYLAB_XDP_UDP_PORT);
}

SEC("xdp")
int spraylab_xdp(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  if (!is_testbed(data, data_end)) return XDP_PASS;
  // The flags' low bits are the action when the queue has no socket (kernel >= 5.3).
  return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

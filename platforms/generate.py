#!/usr/bin/env python3
"""Writes the generated platform files of platforms/ (the big boxes and the multi-node clusters).

    python3 platforms/generate.py            # (re)write them next to this script
    python3 platforms/generate.py --check    # exit 1 if a file differs from what would be written
    python3 platforms/generate.py --out DIR  # write them into DIR instead

Standard library only; the output is deterministic (same input, same bytes). The conventions
(host properties, link kinds, routes, zones) are those of platforms/README.md. Every number that
is an assumption says so in the comment at the top of its file.

Files written:
  dgx_a100.xml                         8x A100-SXM4-80GB on NVSwitch gen2, two sockets
  8xa100_nvlink_pairs_dual_socket.xml  8x A100, NV12 pairs, NODE within a socket, SYS across
  dgx1_hybrid_cube_mesh.xml            DGX-1V hybrid cube mesh (NV1/NV2), A100 model, NVLink2 rates
  8xrtx4090_sys.xml                    8x RTX 4090, PCIe only, every pair SYS, no P2P
  2x_dgx_h100_ib.xml                   2 DGX H100 nodes, 8x 400 Gb/s InfiniBand each (zones)
  16x_dgx_h100_ib.xml                  16 DGX H100 nodes (zones)
  128x_dgx_h100_ib.xml                 128 DGX H100 nodes = 1,024 GPUs (zones)
  oci_2x_a100_40gb_roce.xml            2x OCI BM.GPU4.8, 8x A100 40GB each, 16x 100 Gb/s RoCE per node
  2x_gcp_a3mega_tcpxo.xml              2 GCP A3 Mega nodes, 8x H100 each, 8x 200 Gb/s GPUDirect-TCPXO NICs
  2x_hgx4_h100_ib200.xml               2 nodes of 4x H100 (every pair NV6, no NVSwitch), 4x 200 Gb/s InfiniBand each
"""

import argparse
import os
import sys

DOCTYPE = ("<?xml version='1.0'?>\n"
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n')

UP, DOWN = "UP", "DOWN"


class Xml:
    """Accumulates the lines of one platform file."""

    def __init__(self, comment_lines):
        self.lines = [DOCTYPE.rstrip("\n")]
        self.lines.append("<!--")
        for line in comment_lines:
            if "--" in line:
                raise ValueError("an XML comment may not contain '--': " + line)
            self.lines.append(("  " + line).rstrip())
        self.lines.append("-->")
        self.lines.append('<platform version="4.1">')
        self.depth = 1

    def raw(self, text):
        self.lines.append("  " * self.depth + text)

    def open(self, text):
        self.raw(text)
        self.depth += 1

    def close(self, tag):
        self.depth -= 1
        self.raw("</%s>" % tag)

    def comment(self, text):
        self.raw("<!-- %s -->" % text)

    def host(self, hid, speed, props):
        body = "".join('<prop id="%s" value="%s"/>' % (k, v) for k, v in props)
        self.raw('<host id="%s" speed="%s">%s</host>' % (hid, speed, body))

    def router(self, rid):
        self.raw('<router id="%s"/>' % rid)

    def link(self, lid, bandwidth, latency, kind, split):
        sharing = ' sharing_policy="SPLITDUPLEX"' if split else ""
        self.raw('<link id="%s" bandwidth="%s" latency="%s"%s><prop id="kind" value="%s"/></link>'
                 % (lid, bandwidth, latency, sharing, kind))

    def prop(self, key, value):
        self.raw('<prop id="%s" value="%s"/>' % (key, value))

    @staticmethod
    def hops(hops):
        out = []
        for hop in hops:
            if isinstance(hop, tuple):
                out.append('<link_ctn id="%s" direction="%s"/>' % hop)
            else:
                out.append('<link_ctn id="%s"/>' % hop)
        return "".join(out)

    def route(self, src, dst, hops):
        self.raw('<route src="%s" dst="%s">%s</route>' % (src, dst, self.hops(hops)))

    def zone_route(self, src, dst, gw_src, gw_dst, hops):
        self.raw('<zoneRoute src="%s" dst="%s" gw_src="%s" gw_dst="%s">%s</zoneRoute>'
                 % (src, dst, gw_src, gw_dst, self.hops(hops)))

    def text(self):
        self.depth = 0
        self.raw("</platform>")
        return "\n".join(self.lines) + "\n"


def gpu_props(model, index, cpu, node=None, p2p=None):
    props = [("gpu_model", model), ("index", str(index))]
    if node is not None:
        props.append(("node", str(node)))
    props.append(("cpu", cpu))
    if p2p is not None:
        props.append(("p2p", p2p))
    return props


def cpu_hosts(x, sockets):
    for s in sockets:
        x.host("cpu%d" % s, "1Gf", [("role", "cpu")])


def gpu_cpu_routes(x, gpus, socket_of, sockets, up_chain, cross):
    """GPU -> every CPU socket: up its PCIe chain to its socket, then `cross(a, b)` to another."""
    for g in gpus:
        own = socket_of(g)
        order = [own] + [s for s in sockets if s != own]
        for s in order:
            hops = list(up_chain(g))
            if s != own:
                hops += cross(own, s)
            x.route("gpu%d" % g, "cpu%d" % s, hops)


# ---------------------------------------------------------------------------------------------
# 1. DGX A100

def dgx_a100():
    model, speed = "A100-SXM4-80GB", "312Tf"
    x = Xml([
        "DGX A100 / HGX A100 8-GPU: 8x A100 SXM4 80GB, NVLink3 through six NVSwitch gen2 (NV12",
        "all-to-all): 12 links x 25 GB/s = 300 GB/s per direction per GPU, one nvswitch port link",
        "per GPU (SPLITDUPLEX 300GBps, 0.5us). PCIe Gen4 x16 lanes, 24 GB/s sustained per direction,",
        "to two sockets: GPUs 0-3 on socket 0, 4-7 on socket 1.",
        "Assumptions: host bridges 48 GB/s and the socket interconnect (upi: AMD xGMI on the real",
        "box) 40 GB/s, SHARED by both directions; the PCIe switches that pair GPUs with NICs on the",
        "real board and its NPS4 NUMA split are not modelled (same style as dgx_h100.xml).",
        "Latencies are physical hops; NCCL protocol costs come from the calibration.",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="dgx" routing="Full">')
    cpu_hosts(x, [0, 1])
    for g in range(8):
        x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (g // 4)))
    for g in range(8):
        x.link("nvsw%d" % g, "300GBps", "0.5us", "nvswitch", True)
    for g in range(8):
        x.link("pcie%d" % g, "24GBps", "1us", "pcie", True)
    x.link("hb0", "48GBps", "0.5us", "host_bridge", False)
    x.link("hb1", "48GBps", "0.5us", "host_bridge", False)
    x.link("upi", "40GBps", "1.5us", "upi", False)
    for a in range(8):
        for b in range(a + 1, 8):
            x.route("gpu%d" % a, "gpu%d" % b, [("nvsw%d" % a, UP), ("nvsw%d" % b, DOWN)])
    gpu_cpu_routes(x, range(8), lambda g: g // 4, [0, 1],
                   lambda g: [("pcie%d" % g, UP), "hb%d" % (g // 4)], lambda s, t: ["upi"])
    x.close("zone")
    return x.text()


# ---------------------------------------------------------------------------------------------
# 2. 8x A100 with NVLink pairs, dual socket

def a100_nvlink_pairs():
    model, speed = "A100-SXM4-80GB", "312Tf"
    x = Xml([
        "8x A100 80GB joined in NVLink pairs on a dual-socket host: the matrix of",
        "tests/data/topo/8xa100-nv12-pairs-dual-socket.txt (NVIDIA/nccl-tests issue #178):",
        "(0,1) (2,3) (4,5) (6,7) are NV12, other pairs within a socket NODE, across sockets SYS;",
        "GPUs 0-3 on socket (NUMA node) 0, 4-7 on socket 1.",
        "NV12 = 12 NVLink3 links x 25 GB/s = 300 GB/s raw per direction; 250 GB/s sustained as the",
        "chapter uses (nvlink links, SPLITDUPLEX). PCIe Gen4 x16 lanes 24 GB/s sustained per direction.",
        "NODE = across two host bridges of one NUMA node: each GPU hangs off its own root port",
        "(its own host_bridge link); the two GPUs of a pair share no PCIe switch (nvidia-smi prints",
        "no PCIe code for an NV# pair; as `tpsim topo import`, no shared switch is invented), so the",
        "pairs sit under separate PCIe attachments. SYS adds the upi link.",
        "Assumptions: gpu_model A100-SXM4-80GB although NVLink bridges imply the PCIe card (the",
        "catalog's A100 rows are SXM; flops and HBM differ little at this level); host bridges",
        "48 GB/s and upi 40 GB/s SHARED by both directions; latencies are physical hops.",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="box" routing="Full">')
    cpu_hosts(x, [0, 1])
    for g in range(8):
        x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (g // 4)))
    for p in range(0, 8, 2):
        x.link("nv%d%d" % (p, p + 1), "250GBps", "1us", "nvlink", True)
    for g in range(8):
        x.link("pcie%d" % g, "24GBps", "1us", "pcie", True)
    for g in range(8):
        x.link("hb%d" % g, "48GBps", "0.5us", "host_bridge", False)
    x.link("upi", "40GBps", "1.5us", "upi", False)
    for a in range(8):
        for b in range(a + 1, 8):
            if a % 2 == 0 and b == a + 1:
                x.route("gpu%d" % a, "gpu%d" % b, [("nv%d%d" % (a, b), UP)])
                continue
            hops = [("pcie%d" % a, UP), "hb%d" % a]
            if a // 4 != b // 4:
                hops.append("upi")
            hops += ["hb%d" % b, ("pcie%d" % b, DOWN)]
            x.route("gpu%d" % a, "gpu%d" % b, hops)
    gpu_cpu_routes(x, range(8), lambda g: g // 4, [0, 1],
                   lambda g: [("pcie%d" % g, UP), "hb%d" % g], lambda s, t: ["upi"])
    x.close("zone")
    return x.text()


# ---------------------------------------------------------------------------------------------
# 3. DGX-1 hybrid cube mesh

# NVLinks per GPU pair of the DGX-1V (`nvidia-smi topo -m` as published, e.g. in NERSC Cori GPU
# job scripts and OneFlow's DGX-1V benchmark reports; NVIDIA/nccl issue #671's topology dump
# agrees for GPUs 0 and 1). Every other pair is SYS.
DGX1_NVLINKS = {
    (0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2,
    (1, 2): 2, (1, 3): 1, (1, 5): 2,
    (2, 3): 2, (2, 6): 1,
    (3, 7): 1,
    (4, 5): 1, (4, 6): 1, (4, 7): 2,
    (5, 6): 2, (5, 7): 1,
    (6, 7): 2,
}


def dgx1():
    model, speed = "A100-SXM4-40GB", "312Tf"
    for g in range(8):
        links = sum(n for pair, n in DGX1_NVLINKS.items() if g in pair)
        assert links == 6, (g, links)
    x = Xml([
        "DGX-1 style hybrid cube mesh (DGX-1V): 8 GPUs, 6 NVLink2 links each, 25 GB/s per link per",
        "direction. GPUs 0-3 and 4-7 form two fully connected quads; GPU i is joined to GPU i+4.",
        "NVLinks per pair, from the published DGX-1V `nvidia-smi topo -m` (NERSC Cori GPU nodes,",
        "OneFlow DGX-1V benchmark reports; NVIDIA/nccl#671's topology dump agrees for GPUs 0, 1):",
        "  NV2: 0-3 0-4 1-2 1-5 2-3 4-7 5-6 6-7    NV1: 0-1 0-2 1-3 2-6 3-7 4-5 4-6 5-7",
        "  (one nvlink link per pair: NV1 25GBps, NV2 50GBps, SPLITDUPLEX). Every other pair is SYS.",
        "PCIe Gen3 (the DGX-1 board): x16 lanes 12 GB/s sustained per direction; one PCIe switch per",
        "pair 0-1, 2-3, 4-5, 6-7 (PLX, as in the topology dump); each switch on its own host bridge",
        "of its socket (the NIC columns of the published matrix say NODE between the two switches of",
        "a socket); GPUs 0-3 on socket 0, 4-7 on socket 1; UPI (QPI on the real box) between them.",
        "NCCL P2P level PXB (its default, written out): PCIe pairs here are all SYS, so their",
        "transfers are staged through host memory.",
        "Assumptions: the catalog has no V100, so gpu_model is A100-SXM4-40GB (its flops and HBM,",
        "not a V100's) with the DGX-1V's NVLink2 rates and topology; raw NVLink rates (no sustained",
        "derating); pcie_switch and host bridges 24 GB/s SHARED (2 x the x16 rate); upi 40 GB/s",
        "SHARED (two QPI links at 9.6 GT/s are 38.4 GB/s per direction raw); latencies are",
        "physical hops (nvlink 1us, pcie 1us, switch and bridge 0.5us, upi 1.5us).",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="dgx1" routing="Full">')
    x.prop("p2p_level", "PXB")
    cpu_hosts(x, [0, 1])
    for g in range(8):
        x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (g // 4)))
    for (a, b), n in sorted(DGX1_NVLINKS.items()):
        x.link("nv%d%d" % (a, b), "%dGBps" % (25 * n), "1us", "nvlink", True)
    for g in range(8):
        x.link("pcie%d" % g, "12GBps", "1us", "pcie", True)
    for p in range(4):
        x.link("sw%d" % p, "24GBps", "0.5us", "pcie_switch", False)
    for p in range(4):
        x.link("hb%d" % p, "24GBps", "0.5us", "host_bridge", False)
    x.link("upi", "40GBps", "1.5us", "upi", False)

    def chain(g):
        return [("pcie%d" % g, UP), "sw%d" % (g // 2), "hb%d" % (g // 2)]

    for a in range(8):
        for b in range(a + 1, 8):
            if (a, b) in DGX1_NVLINKS:
                x.route("gpu%d" % a, "gpu%d" % b, [("nv%d%d" % (a, b), UP)])
                continue
            assert a // 4 != b // 4  # every PCIe-only pair crosses the sockets
            hops = chain(a) + ["upi", "hb%d" % (b // 2), "sw%d" % (b // 2), ("pcie%d" % b, DOWN)]
            x.route("gpu%d" % a, "gpu%d" % b, hops)
    gpu_cpu_routes(x, range(8), lambda g: g // 4, [0, 1], chain, lambda s, t: ["upi"])
    x.close("zone")
    return x.text()


# ---------------------------------------------------------------------------------------------
# 4. 8x RTX 4090, every pair SYS

def rtx4090_sys():
    model, speed = "RTX4090-24GB", "165Tf"
    x = Xml([
        "8x RTX 4090 24GB PCIe server, no NVLink, every pair SYS in `nvidia-smi topo -m`.",
        "Each GPU on its own PCIe Gen4 x16 lane (24 GB/s sustained per direction) to a CPU root",
        "port (its own host_bridge link, no PCIe switch); GPUs 0-3 on socket 0, 4-7 on socket 1;",
        "the upi link joins the sockets.",
        "Every pair SYS, also within a socket: that is what such servers print when the BIOS splits",
        "each socket into NUMA domains (AMD NPS4 or Intel SNC4) with one GPU per domain, so",
        "same-socket pairs also cross an SMP interconnect: the socket's own fabric between its",
        "NUMA domains (links mesh0, mesh1, kind upi so that the path class is SYS).",
        "GeForce: p2p=no on every GPU (the stock driver reports PCIe P2P not supported), so NCCL",
        "stages every transfer through host memory (GPU -> its socket's memory -> peer GPU);",
        "the direct routes only give the path class.",
        "Assumptions: the NUMA split above; host bridges (root complexes) 48 GB/s, mesh0/mesh1",
        "96 GB/s and upi 40 GB/s, all SHARED by both directions; CPU hosts are the two sockets;",
        "latencies are physical hops.",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="box" routing="Full">')
    cpu_hosts(x, [0, 1])
    for g in range(8):
        x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (g // 4), p2p="no"))
    for g in range(8):
        x.link("pcie%d" % g, "24GBps", "1us", "pcie", True)
    for g in range(8):
        x.link("hb%d" % g, "48GBps", "0.5us", "host_bridge", False)
    x.link("mesh0", "96GBps", "0.5us", "upi", False)
    x.link("mesh1", "96GBps", "0.5us", "upi", False)
    x.link("upi", "40GBps", "1.5us", "upi", False)
    for a in range(8):
        for b in range(a + 1, 8):
            hops = [("pcie%d" % a, UP), "hb%d" % a]
            if a // 4 == b // 4:
                hops.append("mesh%d" % (a // 4))
            else:
                hops.append("upi")
            hops += ["hb%d" % b, ("pcie%d" % b, DOWN)]
            x.route("gpu%d" % a, "gpu%d" % b, hops)
    gpu_cpu_routes(x, range(8), lambda g: g // 4, [0, 1],
                   lambda g: [("pcie%d" % g, UP), "hb%d" % g], lambda s, t: ["upi"])
    x.close("zone")
    return x.text()


# ---------------------------------------------------------------------------------------------
# 5, 6. DGX H100 clusters on 400 Gb/s InfiniBand (SimGrid zones)

LEAF_GROUP = 32  # nodes per leaf group (a DGX SuperPOD scalable unit)


# GCP A3 Mega (a3-megagpu-8g): 8x H100 80GB on NVSwitch, GPU-to-GPU networking GPUDirect-TCPXO,
# 1,600 Gbps of GPU NICs (cloud.google.com/compute/docs/gpus/gpu-network-bandwidth, "A3 Mega
# (NVIDIA H100): up to 1,600 Gbps"; the machine-type table lists 1,800 Gbps with the host NIC):
# derived 200 Gb/s per GPU, one NIC per GPU as on the DGX.
A3MEGA_NIC = dict(gbps=200, what="GCP A3 Mega nodes (a3-megagpu-8g)", nic="One GPUDirect-TCPXO 200 Gb/s NIC per GPU (derived: "
                  "GCP's 1,600 Gbps of GPU NICs / 8)", fabric="Ethernet (GPUDirect-TCPXO, not RDMA)", transport="tcp")
DGX_NIC = dict(gbps=400, what="DGX H100 nodes", nic="One ConnectX-7 400 Gb/s NIC per GPU", fabric="400 Gb/s InfiniBand (NDR)")


def node_host_links(x, k, gpus, gbps):
    """Node k's PCIe lanes, one NIC per GPU, its two host bridges (sockets 2k, 2k + 1) and its UPI."""
    c0 = 2 * k
    for g in gpus:
        x.link("pcie%d" % g, "48GBps", "1us", "pcie", True)
    for g in gpus:
        x.link("nic%d" % g, "%dGbps" % gbps, "1us", "nic", True)
    x.link("hb%d" % c0, "96GBps", "0.5us", "host_bridge", False)
    x.link("hb%d" % (c0 + 1), "96GBps", "0.5us", "host_bridge", False)
    x.link("upi%d" % k, "60GBps", "1.5us", "upi", False)


def node_host_routes(x, k, gpus, per_socket):
    """Node k's GPUs to its gateway over their NICs, and to both sockets over PCIe (and the UPI): the
    first `per_socket` GPUs hang off socket 2k, the others off 2k + 1."""
    for g in gpus:
        x.route("gpu%d" % g, "node%d_gw" % k, [("nic%d" % g, UP)])
    c0 = 2 * k
    socket_of = lambda g: c0 + (g - gpus[0]) // per_socket
    gpu_cpu_routes(x, gpus, socket_of, [c0, c0 + 1],
                   lambda g, so=socket_of: [("pcie%d" % g, UP), "hb%d" % so(g)],
                   lambda s, t, k=k: ["upi%d" % k])


def dgx_h100_cluster(nodes, nic=DGX_NIC):
    model, speed = "H100-SXM5-80GB", "989Tf"
    gbps = nic["gbps"]
    groups = (nodes + LEAF_GROUP - 1) // LEAF_GROUP
    if groups > 1:
        spine_lines = [
            "Leaf groups of %d nodes (a DGX SuperPOD scalable unit): nodes 32u..32u+31 form group u;"
            % LEAF_GROUP,
            "%d groups joined by a spine: one spine<u> uplink per group (fabric, SPLITDUPLEX," % groups,
            "%d x %d GB/s = %dGBps per direction: non-blocking, like the leaves, 1us). Nodes of"
            % (LEAF_GROUP, gbps, LEAF_GROUP * gbps),
            "one group: leaf<a> UP, leaf<b> DOWN; of two groups: leaf<a> UP, spine<u> UP,",
            "spine<v> DOWN, leaf<b> DOWN.",
        ]
    else:
        spine_lines = [
            "The %d nodes fit in one leaf group (a DGX SuperPOD scalable unit has %d nodes), so there"
            % (nodes, LEAF_GROUP),
            "is no spine: a node-to-node route is leaf<a> UP, leaf<b> DOWN.",
        ]
    x = Xml([
        "%d %s = %d GPUs on %s, rail-optimised, SimGrid zones" % (nodes, nic["what"], 8 * nodes, nic["fabric"]),
        "as in platforms/README.md (Multi-node platforms): a top Full zone `cluster` holding one",
        "Full zone node<k> per node, the fabric links and one zoneRoute per pair of nodes.",
        "Node k: GPUs gpu<8k>..gpu<8k+7> (index = global index, node = k), 8x H100 SXM5 80GB on",
        "NVSwitch gen3 (NV18: 18 NVLink4 links x 25 GB/s = 450 GB/s per direction; one nvswitch port",
        "link nvsw<g> per GPU, SPLITDUPLEX 450GBps, 0.5us); PCIe Gen5 x16 lanes 48 GB/s per direction",
        "to two sockets cpu<2k> (GPUs 8k..8k+3) and cpu<2k+1> (8k+4..8k+7) through host bridges",
        "hb<2k>, hb<2k+1> (96 GB/s) and upi<k> (60 GB/s), SHARED, as in dgx_h100.xml.",
        "%s: link nic<g> (kind nic, %dGbps = %g GB/s per direction," % (nic["nic"], gbps, gbps / 8),
        "SPLITDUPLEX, 1us); GPU g reaches its node's gateway router node<k>_gw over nic<g> UP.",
        "Rail-optimised: GPU i of every node is on rail i. Each node's 8 rails are modelled as one",
        "uplink leaf<k> (fabric, SPLITDUPLEX, 8 x %d Gb/s = %d GB/s per direction: non-blocking;" % (gbps, gbps),
        "1us); a GPU in node a reaches a GPU in node b over nic UP, the fabric links, nic DOWN.",
    ] + spine_lines + [
        "Assumptions: the rails are lumped into the leaf<k> uplink (rail-local and cross-rail traffic",
        "are alike here; NCCL's PXN keeps real traffic on its rail); fabric latencies 1us per hop;",
        "the GPU-NIC PCIe hop is folded into the NIC link; latencies are physical hops (NCCL protocol",
        "costs come from the calibration).",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="cluster" routing="Full">')
    if "transport" in nic:
        x.prop("net_transport", nic["transport"])  # NCCL's network steps over TCP (platforms/README.md)
    for k in range(nodes):
        x.open('<zone id="node%d" routing="Full">' % k)
        x.router("node%d_gw" % k)
        base, c0 = 8 * k, 2 * k
        cpu_hosts(x, [c0, c0 + 1])
        gpus = range(base, base + 8)
        for g in gpus:
            x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (c0 + (g - base) // 4), node=k))
        for g in gpus:
            x.link("nvsw%d" % g, "450GBps", "0.5us", "nvswitch", True)
        node_host_links(x, k, gpus, gbps)
        for a in gpus:
            for b in gpus:
                if a < b:
                    x.route("gpu%d" % a, "gpu%d" % b, [("nvsw%d" % a, UP), ("nvsw%d" % b, DOWN)])
        node_host_routes(x, k, gpus, 4)
        x.close("zone")
    for k in range(nodes):
        x.link("leaf%d" % k, "%dGBps" % gbps, "1us", "fabric", True)
    if groups > 1:
        for u in range(groups):
            x.link("spine%d" % u, "%dGBps" % (LEAF_GROUP * gbps), "1us", "fabric", True)
    for a in range(nodes):
        for b in range(a + 1, nodes):
            hops = [("leaf%d" % a, UP)]
            ga, gb = a // LEAF_GROUP, b // LEAF_GROUP
            if ga != gb:
                hops += [("spine%d" % ga, UP), ("spine%d" % gb, DOWN)]
            hops.append(("leaf%d" % b, DOWN))
            x.zone_route("node%d" % a, "node%d" % b, "node%d_gw" % a, "node%d_gw" % b, hops)
    x.close("zone")
    return x.text()


def hgx4_h100_cluster(nodes):
    """Nodes of 4 H100 SXM5 on an HGX 4-GPU board (every pair NV6, no NVSwitch), 4 x 200 Gb/s NICs."""
    model, speed, gbps, per_node = "H100-SXM5-80GB", "989Tf", 200, 4
    x = Xml([
        "%d nodes of 4x H100 SXM5 on an NVLink board without NVSwitch = %d GPUs, 4x 200 Gb/s" % (nodes, per_node * nodes),
        "InfiniBand (HDR) NICs a node, SimGrid zones as in platforms/README.md (Multi-node platforms).",
        "The nodes of SURF Snellius's gpu_h100 partition as its published nccl-tests runs show them",
        "(tests/data/measured/SOURCES.md: NCCL finds no NVLS multicast and rings the 4 GPUs in every",
        "order; its log lists four InfiniBand ports, ibstat 200 Gb/s each).",
        "Node k: GPUs gpu<4k>..gpu<4k+3> (index = global index, node = k). Every GPU pair: one nvlink",
        "link of 6 NVLink4 links x 25 GB/s = 150 GB/s per direction (SPLITDUPLEX, 1us), as",
        "`tpsim topo import` writes NV6. PCIe Gen5 x16 lanes 48 GB/s per direction to two sockets",
        "cpu<2k> (GPUs 4k, 4k+1) and cpu<2k+1> (4k+2, 4k+3) through host bridges hb<2k>, hb<2k+1>",
        "(96 GB/s) and upi<k> (60 GB/s), SHARED.",
        "One 200 Gb/s NIC per GPU: link nic<g> (kind nic, %dGbps = %g GB/s per direction," % (gbps, gbps / 8),
        "SPLITDUPLEX, 1us); GPU g reaches its node's gateway router node<k>_gw over nic<g> UP; each",
        "node's 4 rails are one uplink leaf<k> (fabric, SPLITDUPLEX, 4 x %d Gb/s = %d GB/s per" % (gbps, per_node * gbps // 8),
        "direction, 1us); a node-to-node route is leaf<a> UP, leaf<b> DOWN.",
        "Assumptions: every pair NV6 (18 NVLink4 links an H100 over 3 peers; no matrix was published),",
        "the sockets' split of the GPUs, one NIC per GPU, a non-blocking fabric; latencies are",
        "physical hops (NCCL protocol costs come from the model or a calibration).",
        "Written by platforms/generate.py.",
    ])
    x.open('<zone id="cluster" routing="Full">')
    for k in range(nodes):
        x.open('<zone id="node%d" routing="Full">' % k)
        x.router("node%d_gw" % k)
        base, c0 = per_node * k, 2 * k
        cpu_hosts(x, [c0, c0 + 1])
        gpus = range(base, base + per_node)
        for g in gpus:
            x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % (c0 + (g - base) // 2), node=k))
        for a in gpus:
            for b in gpus:
                if a < b:
                    x.link("nv%d_%d" % (a, b), "150GBps", "1us", "nvlink", True)
        node_host_links(x, k, gpus, gbps)
        for a in gpus:
            for b in gpus:
                if a < b:
                    x.route("gpu%d" % a, "gpu%d" % b, [("nv%d_%d" % (a, b), UP)])
        node_host_routes(x, k, gpus, 2)
        x.close("zone")
    for k in range(nodes):
        x.link("leaf%d" % k, "%dGBps" % (per_node * gbps // 8), "1us", "fabric", True)
    for a in range(nodes):
        for b in range(a + 1, nodes):
            x.zone_route("node%d" % a, "node%d" % b, "node%d_gw" % a, "node%d_gw" % b, [("leaf%d" % a, UP), ("leaf%d" % b, DOWN)])
    x.close("zone")
    return x.text()


# ---------------------------------------------------------------------------------------------
# 7. 2x OCI BM.GPU4.8 on RoCE (the machine of calibrate/recorded/oci-2x-bm-gpu4-8-16xa100-40gb-roce.log)

def oci_2x_a100():
    model, speed = "A100-SXM4-40GB", "312Tf"
    x = Xml([
        "2x OCI BM.GPU4.8: 8x A100-SXM4-40GB per node on NVSwitch (NVLink3, 12 links x 25 GB/s =",
        "300 GB/s per direction per GPU, one nvswitch port link per GPU, SPLITDUPLEX, 0.5us);",
        "PCIe Gen4 x16 lanes 24 GB/s sustained per direction; GPUs 0-3 of a node on its first socket,",
        "4-7 on its second (host bridges 48 GB/s, SHARED). Machine of",
        "calibrate/recorded/oci-2x-bm-gpu4-8-16xa100-40gb-roce.log.",
        "Between nodes: RDMA over RoCEv2 (OCI cluster network), 1.6 Tb/s per node as 16 x 100 Gb/s",
        "ports, i.e. two ports per GPU. Sources: OCI's Block Volume Performance page, table 'Bare",
        "Metal Shapes' (docs.oracle.com/en-us/iaas/Content/Block/Concepts/blockvolumeperformance.htm,",
        "updated 2024-07-19): BM.GPU4.8 'Max Network Bandwidth 1 x 50 Gbps, 8 x 200 Gbps RDMA'; and",
        "Oracle's tutorial that recorded the log (github oracle-japan/ocitutorials,",
        "tutorials/_hpc/spinup-gpu-cluster.md): '1.6 Tbps (100 Gbps x 16)' RDMA interfaces, run with",
        "NCCL_IB_HCA listing 16 mlx5 ports.",
        "Each GPU's two 100 Gb/s ports are one link nic<g> (kind nic, 200Gbps = 25 GB/s per direction,",
        "SPLITDUPLEX, 1us): a route is one path, so two parallel ports are modelled as their sum.",
        "Each node's 16 ports go into a leaf, modelled as one uplink leaf<k> per node (fabric,",
        "SPLITDUPLEX, 16 x 12.5 GB/s = 200 GB/s per direction: non-blocking; 1us).",
        "A GPU in node a reaches a GPU in node b over pcie UP, nic UP, leaf<a> UP, leaf<b> DOWN,",
        "nic DOWN, pcie DOWN.",
        "Assumptions: the GPU-NIC path crosses the GPU's PCIe lane (24 GB/s, so a GPU's RoCE traffic",
        "is capped by it, just under its 25 GB/s of ports); fabric latencies 1us per hop; latencies",
        "are physical hops (NCCL protocol costs come from the calibration).",
        "Written by platforms/generate.py.",
    ])
    nodes, per = 2, 8
    gpus = range(nodes * per)
    node_of = lambda g: g // per
    socket_of = lambda g: g // 4
    x.open('<zone id="cluster" routing="Full">')
    cpu_hosts(x, range(2 * nodes))
    for g in gpus:
        x.host("gpu%d" % g, speed, gpu_props(model, g, "cpu%d" % socket_of(g), node=node_of(g)))
    for g in gpus:
        x.link("nvsw%d" % g, "300GBps", "0.5us", "nvswitch", True)
    for g in gpus:
        x.link("pcie%d" % g, "24GBps", "1us", "pcie", True)
    for g in gpus:
        x.link("nic%d" % g, "200Gbps", "1us", "nic", True)
    for k in range(nodes):
        x.link("leaf%d" % k, "200GBps", "1us", "fabric", True)
    for s in range(2 * nodes):
        x.link("hb%d" % s, "48GBps", "0.5us", "host_bridge", False)
    for a in gpus:
        for b in gpus:
            if b <= a:
                continue
            if node_of(a) == node_of(b):
                hops = [("nvsw%d" % a, UP), ("nvsw%d" % b, DOWN)]
            else:
                hops = [("pcie%d" % a, UP), ("nic%d" % a, UP), ("leaf%d" % node_of(a), UP),
                        ("leaf%d" % node_of(b), DOWN), ("nic%d" % b, DOWN), ("pcie%d" % b, DOWN)]
            x.route("gpu%d" % a, "gpu%d" % b, hops)
        x.route("gpu%d" % a, "cpu%d" % socket_of(a), [("pcie%d" % a, UP), "hb%d" % socket_of(a)])
    x.close("zone")
    return x.text()


FILES = [
    ("dgx_a100.xml", dgx_a100),
    ("8xa100_nvlink_pairs_dual_socket.xml", a100_nvlink_pairs),
    ("dgx1_hybrid_cube_mesh.xml", dgx1),
    ("8xrtx4090_sys.xml", rtx4090_sys),
    ("2x_dgx_h100_ib.xml", lambda: dgx_h100_cluster(2)),
    ("16x_dgx_h100_ib.xml", lambda: dgx_h100_cluster(16)),
    ("128x_dgx_h100_ib.xml", lambda: dgx_h100_cluster(128)),
    ("oci_2x_a100_40gb_roce.xml", oci_2x_a100),
    ("2x_gcp_a3mega_tcpxo.xml", lambda: dgx_h100_cluster(2, A3MEGA_NIC)),
    ("2x_hgx4_h100_ib200.xml", lambda: hgx4_h100_cluster(2)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="directory to write into (default: the directory of this script)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a file is missing or differs")
    args = parser.parse_args()
    stale = []
    for name, make in FILES:
        text = make()
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                stale.append(name)
            continue
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print("wrote %s (%d bytes)" % (os.path.join(os.path.relpath(args.out), name), len(text.encode())))
    if stale:
        print("out of date: " + ", ".join(stale) + " (run python3 platforms/generate.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

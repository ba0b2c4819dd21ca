// Congestion-controller cross-check for ns-3.37: n TCP downloads server -> AP -> STAs
// through a drop-tail AP buffer of B packets (scenarios/download.toml of wifitcp).
//
// Topology: server --p2p 100 Mbit/s, 15 ms, 1000-packet queue--> AP --802.11g
// (ERP-OFDM 24 Mbit/s, DCF, RTS off)--> n STAs. One bulk TCP download per STA.
// The AP's Wi-Fi MAC queue holds B packets (drop-tail: with no queue disc, a full
// MAC queue stops the device queue and the traffic-control layer drops, TcDrop).
//
// TCP: --cc=newreno|cubic|vegas|bbr|westwood|veno (TcpNewReno, TcpCubic, TcpVegas, TcpBbr,
// TcpWestwood as WESTWOODPLUS, TcpVeno), --sack, classic
// recovery (not PRR), timestamps off, every segment ACKed (DelAckCount 1), initial
// window 2, receive buffer 1000 segments with window scaling, minimum RTO 1 s,
// clock granularity 1 ms; TcpCubic's HyStart at its default (on, both signals;
// --hystart=0 turns it off);
// every other controller parameter at its ns-3 default (CUBIC C 0.4, beta 0.7,
// fast convergence, TCP friendliness; Vegas alpha 2, beta 4, gamma 1; TcpBbr's
// defaults). TcpBbr needs pacing: TcpSocketState::EnablePacing is set for it (and for
// any controller with --pacing=1, ns-3's own rate: 2 x or 1.2 x cwnd / RTT), the
// initial window unpaced (PaceInitialWindow false, ns-3's default).
// --aqm=fq-codel: an FqCoDelQueueDisc (ns-3's defaults: target 5 ms, interval 100 ms,
// 1024 flows, quantum 1514 bytes, limit --apQueue packets) on the AP's Wi-Fi device above
// a MAC queue of --macQueue packets (default 4), instead of the drop-tail MAC queue.
// --aqm=red-ecn / codel-ecn: a RedQueueDisc (MinTh 5, MaxTh 15, LInterm 10 (max_p 0.1),
// QW 0.002, Gentle, UseEcn, UseHardDrop, MeanPktSize 1500, LinkBandwidth 24 Mbit/s, Wait false unless
// --redWait=1: ns-3's default Wait spaces signals 1/p_b to 2/p_b apart, Floyd & Jacobson's
// figure 2 takes p_b / (1 - count p_b)) or a CoDelQueueDisc (UseEcn,
// target 5 ms, interval 100 ms) of --apQueue packets, placed like fq-codel.
// --cc=dctcp: TcpDctcp at both ends (its own ECN mode: per-segment echo); --ecn=1:
// TcpSocketBase::UseEcn On (RFC 3168) for the other controllers.
//
// Output: one JSON line: per-flow goodput (bytes*8/simTime), RTO and fast-recovery
// counts per flow, AP queue drops (with a queue disc also by reason, "qdisc_stats"),
// flow 0's cwnd (segments) sampled every 0.1 s, and the mean RTT over every flow's RTT
// samples (the socket's "RTT" trace, ms: ns-3's smoothed RTT after each ACK).
// Our own code; only the ns-3 public API is used.

#include "common.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

using namespace ns3;

namespace
{

uint64_t g_apDrops = 0;
Ptr<QueueDisc> g_apQd; // the AP's queue disc (--aqm other than droptail), for its drop and mark reasons
std::vector<uint32_t> g_rto;
std::vector<uint32_t> g_fastRecov;
uint32_t g_cwnd0 = 0; // bytes, flow 0
std::vector<double> g_cwndSeries;
std::set<std::string> g_ackModes;
uint32_t g_mss = 1460;
uint32_t g_assoc = 0;
double g_rttSum = 0; // seconds, over every RTT sample of every flow
uint64_t g_rttN = 0;
std::ofstream g_trace; // --trace: flow 0's sender events, one line each

// Flow 0 trace lines: "t_s kind fields...". kinds: tx seq_seg (retx 0|1), ack ack_seg,
// cwnd bytes, ssth bytes, infl bytes, state name, drop (AP queue drop), qdrop seq_seg
// reason (a data segment the AP's queue disc dropped before enqueueing it, the reason's
// spaces as '_'), qmark seq_seg reason (one it marked CE).
bool
Tracing()
{
    return g_trace.is_open();
}

void
TraceTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (Tracing() && p->GetSize() > 0)
    {
        g_trace << Simulator::Now().GetSeconds() << " tx " << (h.GetSequenceNumber().GetValue() - 1) / g_mss
                << "\n";
    }
}

void
TraceRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (Tracing() && (h.GetFlags() & TcpHeader::ACK))
    {
        g_trace << Simulator::Now().GetSeconds() << " ack " << (h.GetAckNumber().GetValue() - 1) / g_mss << "\n";
    }
}

void
TraceU32(std::string kind, uint32_t, uint32_t now)
{
    if (Tracing())
    {
        g_trace << Simulator::Now().GetSeconds() << " " << kind << " " << now << "\n";
    }
}

void
TraceState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (Tracing())
    {
        g_trace << Simulator::Now().GetSeconds() << " state " << TcpSocketState::TcpCongStateName[now] << "\n";
    }
}

void
TraceDrop()
{
    if (Tracing())
    {
        g_trace << Simulator::Now().GetSeconds() << " drop\n";
    }
}

void
ApDrop(Ptr<const WifiMpdu>)
{
    ++g_apDrops;
    TraceDrop();
}

void
ApTcDrop(Ptr<const Packet>)
{
    ++g_apDrops;
    TraceDrop();
}

void
ApQdDrop(Ptr<const QueueDiscItem>)
{
    ++g_apDrops;
    TraceDrop();
}

void
ApQdDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
{
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (!Tracing() || p->RemoveHeader(h) == 0 || p->GetSize() == 0)
    {
        return;
    }
    std::string r(reason);
    std::replace(r.begin(), r.end(), ' ', '_');
    g_trace << Simulator::Now().GetSeconds() << " qdrop " << (h.GetSequenceNumber().GetValue() - 1) / g_mss << " "
            << r << "\n";
}

// A data segment of flow 0 the AP's queue disc marked CE (it carried ECT): "qmark seq_seg
// reason", the reason's spaces as '_'.
void
ApQdMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (!Tracing() || p->RemoveHeader(h) == 0 || p->GetSize() == 0 || h.GetDestinationPort() != 5000)
    {
        return;
    }
    std::string r(reason);
    std::replace(r.begin(), r.end(), ' ', '_');
    g_trace << Simulator::Now().GetSeconds() << " qmark " << (h.GetSequenceNumber().GetValue() - 1) / g_mss << " "
            << r << "\n";
}

void
Assoc(Mac48Address)
{
    ++g_assoc;
}

// --airTrace: every PSDU the AP (node "ap") and station 0 ("sta0") start to send: "t_s node
// kind retry", kind data (a data MPDU) or ctl (an Ack or other control frame), retry 1
// when the MPDU's Retry bit is set.
std::ofstream g_air;

void
AirTx(std::string node, WifiConstPsduMap psdus, WifiTxVector, double)
{
    if (!g_air.is_open())
    {
        return;
    }
    for (const auto& kv : psdus)
    {
        const WifiMacHeader& h = kv.second->GetHeader(0);
        g_air << Simulator::Now().GetSeconds() << " " << node << " " << (h.IsData() ? "data" : "ctl") << " "
              << (h.IsRetry() ? 1 : 0) << "\n";
    }
}

// --airTrace also gets "t_s node backoff N" for every backoff the node's DCF draws (the
// Txop's "BackoffTrace": post-backoff, after a failure, or for a frame that finds the
// medium busy) and "t_s node enqueue 0" for every unicast data MPDU entering its MAC
// queue (the station's TCP ACKs, the AP's segments; ARP broadcasts left out).
void
AirBackoff(std::string node, uint32_t slots, uint8_t)
{
    if (g_air.is_open())
    {
        g_air << Simulator::Now().GetSeconds() << " " << node << " backoff " << slots << "\n";
    }
}

void
AirEnqueue(std::string node, Ptr<const WifiMpdu> mpdu)
{
    const WifiMacHeader& h = mpdu->GetHeader();
    if (g_air.is_open() && h.IsData() && !h.GetAddr1().IsGroup())
    {
        g_air << Simulator::Now().GetSeconds() << " " << node << " enqueue 0\n";
    }
}

void
PsduTxBegin(WifiConstPsduMap psdus, WifiTxVector txv, double)
{
    for (const auto& kv : psdus)
    {
        if (kv.second->GetHeader(0).IsAck() && Simulator::Now().GetSeconds() > 1.0)
        {
            g_ackModes.insert(txv.GetMode().GetUniqueName());
        }
    }
}

// --renoSackReset: ns-3 without SACK counts each duplicate ACK as a SACK of the next
// unmarked segment (TcpTxBuffer::AddRenoSack) and clears these marks only at an RTO
// (ResetRenoSack in ReTxTimeout). A mark left on the segment after SND.UNA becomes a
// "sacked head" at the next cumulative ACK; DiscardUpTo then moves the mark on and marks
// the new head lost, which is retransmitted although it is in flight. The option clears
// the marks, through the public TcpTxBuffer API, before a cumulative ACK is processed
// that ends a duplicate-ACK episode: any new ACK in Open/Disorder (RFC 5681 3.2 resets
// the duplicate-ACK count there) and a full ACK (>= recover) in Recovery (RFC 6582 3.2
// step 3 ends fast recovery). Off by default: a what-if that isolates the effect.
struct FlowTcp
{
    Ptr<TcpSocketBase> sock;
    TcpSocketState::TcpCongState_t state{TcpSocketState::CA_OPEN};
    uint32_t recover{0}; // HighestSequence (bytes) when Recovery was entered
    uint32_t highest{0};
    uint32_t resets{0};  // ResetRenoSack calls that cleared at least one mark
    uint64_t dataTx{0};     // data segments sent
    uint64_t retx{0};       // ... below the highest sequence sent so far
    uint64_t retxOpen{0};   // ... of which in Open or Disorder (RFC 5681 retransmits only
                            //     on the DupThresh-th duplicate ACK or at an RTO)
};

std::vector<FlowTcp> g_flows;
bool g_renoSackReset = false;

// Fast retransmissions at the AP: the first data segment a flow sends after entering
// Recovery (the retransmission on the DupThresh-th duplicate ACK), followed to the AP.
// For each one: the AP's MAC queue length (packets) when IP forwards it to the Wi-Fi
// device (the traffic-control layer drops it, TcDrop, when that queue is full). The same
// queue lengths are kept for every data segment the AP forwards. Each RTO is classed by
// how the segment it resends (SND.UNA) was last sent (o original, f fast retransmission,
// r other retransmission in Recovery, l retransmission after an RTO, x other), whether
// the AP dropped that copy, and whether the flow had come back to Open after a loss
// before ("first": the RTO is in the flow's first loss episode, slow start's overshoot).
Ptr<WifiMacQueue> g_apMacQ;
std::vector<bool> g_frtxNext; // flow entered Recovery: its next data Tx is the fast retransmission
struct SegSend
{
    char kind;
    bool atAp;
    bool dropped;
};
std::vector<std::map<uint32_t, SegSend>> g_lastSend; // per flow: seq -> how its last copy went
std::vector<bool> g_hadLoss;                          // per flow: back in Open after a loss episode
std::map<std::string, uint32_t> g_rtoCause;
SegSend* g_lastFwd = nullptr;                         // the data segment the AP forwarded last
uint64_t g_frtx = 0, g_frtxArrived = 0, g_frtxDropped = 0;
std::vector<uint64_t> g_frtxQlen; // fast retransmissions by AP queue length at arrival
std::vector<uint64_t> g_dataQlen; // every data segment by AP queue length at arrival
uint32_t g_dataPortBase = 5000;

void
ApForward(const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    g_lastFwd = nullptr;
    Ptr<Packet> c = p->Copy();
    TcpHeader h;
    if (!g_apMacQ || c->RemoveHeader(h) == 0 || c->GetSize() == 0)
    {
        return;
    }
    const uint16_t port = h.GetDestinationPort();
    if (port < g_dataPortBase || port >= g_dataPortBase + g_lastSend.size())
    {
        return;
    }
    const uint32_t q = g_apMacQ->GetNPackets();
    if (g_dataQlen.size() <= q)
    {
        g_dataQlen.resize(q + 1, 0);
    }
    ++g_dataQlen[q];
    auto it = g_lastSend[port - g_dataPortBase].find(h.GetSequenceNumber().GetValue());
    if (it == g_lastSend[port - g_dataPortBase].end() || it->second.atAp)
    {
        return;
    }
    it->second.atAp = true;
    g_lastFwd = &it->second;
    if (it->second.kind == 'f')
    {
        ++g_frtxArrived;
        if (g_frtxQlen.size() <= q)
        {
            g_frtxQlen.resize(q + 1, 0);
        }
        ++g_frtxQlen[q];
    }
}

// TcDrop comes within the forwarding call of the packet it drops.
void
ApTcDropProbe(Ptr<const Packet>)
{
    if (g_lastFwd)
    {
        g_lastFwd->dropped = true;
        g_frtxDropped += g_lastFwd->kind == 'f';
        g_lastFwd = nullptr;
    }
}

void
Highest(uint32_t flow, SequenceNumber32, SequenceNumber32 now)
{
    g_flows[flow].highest = now.GetValue();
}

void
TxCount(uint32_t flow, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    FlowTcp& f = g_flows[flow];
    if (p->GetSize() == 0)
    {
        return;
    }
    ++f.dataTx;
    const uint32_t seq = h.GetSequenceNumber().GetValue();
    char kind = seq < f.highest ? (f.state == TcpSocketState::CA_RECOVERY ? 'r'
                                   : f.state == TcpSocketState::CA_LOSS ? 'l'
                                                                        : 'x')
                                : 'o';
    if (g_frtxNext[flow])
    {
        g_frtxNext[flow] = false;
        ++g_frtx;
        kind = 'f';
    }
    g_lastSend[flow][seq] = SegSend{kind, false, false};
    if (seq < f.highest)
    {
        ++f.retx;
        if (f.state == TcpSocketState::CA_OPEN || f.state == TcpSocketState::CA_DISORDER)
        {
            ++f.retxOpen;
        }
    }
}

void
RxBeforeProcessing(uint32_t flow, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    FlowTcp& f = g_flows[flow];
    if (!(h.GetFlags() & TcpHeader::ACK) || f.sock->GetTxBuffer()->GetSacked() == 0)
    {
        return;
    }
    const SequenceNumber32 ack = h.GetAckNumber();
    const bool newAck = ack > f.sock->GetTxBuffer()->HeadSequence();
    const bool openish = f.state == TcpSocketState::CA_OPEN || f.state == TcpSocketState::CA_DISORDER;
    const bool fullAck = f.state == TcpSocketState::CA_RECOVERY && ack.GetValue() >= f.recover;
    if (newAck && (openish || fullAck))
    {
        f.sock->GetTxBuffer()->ResetRenoSack();
        ++f.resets;
    }
}

void
RttSample(Time, Time now)
{
    g_rttSum += now.GetSeconds();
    ++g_rttN;
}

void
CongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_flows[flow].state = now;
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[flow].recover = g_flows[flow].highest;
    }
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_rto[flow];
        const uint32_t head = g_flows[flow].sock->GetTxBuffer()->HeadSequence().GetValue();
        auto it = g_lastSend[flow].find(head);
        std::string cause = it == g_lastSend[flow].end()
                                ? std::string("unknown")
                                : std::string(1, it->second.kind) + (it->second.dropped ? "-dropped" : "-delivered");
        ++g_rtoCause[cause + (g_hadLoss[flow] ? "" : "-first")];
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_fastRecov[flow];
        g_frtxNext[flow] = true;
    }
    if (now == TcpSocketState::CA_OPEN && g_fastRecov[flow] + g_rto[flow] > 0)
    {
        g_hadLoss[flow] = true; // back in Open after a loss episode
    }
}

void
Cwnd0(uint32_t, uint32_t now)
{
    g_cwnd0 = now;
}

void
SampleCwnd(double every)
{
    g_cwndSeries.push_back(double(g_cwnd0) / g_mss);
    Simulator::Schedule(Seconds(every), &SampleCwnd, every);
}

void
HookSocket(Ptr<BulkSendApplication> app, uint32_t flow)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "bulk-send socket not created");
    g_flows[flow].sock = DynamicCast<TcpSocketBase>(s);
    bool ok = s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, flow)) &&
              s->TraceConnectWithoutContext("HighestSequence", MakeBoundCallback(&Highest, flow)) &&
              s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxCount, flow)) &&
              s->TraceConnectWithoutContext("RTT", MakeCallback(&RttSample));
    if (g_renoSackReset)
    {
        ok = ok && s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&RxBeforeProcessing, flow));
    }
    if (flow == 0)
    {
        ok = ok && s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&Cwnd0));
        if (Tracing())
        {
            ok = ok && s->TraceConnectWithoutContext("Tx", MakeCallback(&TraceTx)) &&
                 s->TraceConnectWithoutContext("Rx", MakeCallback(&TraceRx)) &&
                 s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceU32, std::string("cwnd"))) &&
                 s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&TraceU32, std::string("ssth"))) &&
                 s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&TraceU32, std::string("infl"))) &&
                 s->TraceConnectWithoutContext("CongState", MakeCallback(&TraceState));
        }
    }
    NS_ABORT_MSG_IF(!ok, "trace connect failed");
}

void
AfterAssociation(Ptr<ApWifiMac> ap, uint32_t nSta)
{
    if (g_assoc >= nSta)
    {
        NeighborCacheHelper nch;
        nch.PopulateNeighborCache();
        ap->SetAttribute("BeaconGeneration", BooleanValue(false));
        return;
    }
    Simulator::Schedule(MilliSeconds(100), &AfterAssociation, ap, nSta);
}

} // namespace

int
main(int argc, char* argv[])
{
    const double wall0 = bench::WallNow();
    uint32_t nSta = 1;
    double simTime = 60.0;
    double warmup = 1.0;
    uint32_t apQueue = 100;
    std::string cc = "newreno";
    bool sack = true;
    uint32_t rwndPkts = 1000;
    uint32_t mss = 1460;
    uint32_t seed = 1;
    uint32_t run = 1;
    double cwndEvery = 0.1;
    std::string standard = "g"; // g | b (802.11b at 11 Mbit/s: to see ns-3's AP basic rates)
    std::string recovery = "classic";
    bool limitedTx = true;
    std::string trace;
    bool pacing = false;
    std::string aqm = "droptail";
    uint32_t macQueue = 4;
    bool ecn = false;
    bool hystart = true;
    bool redWait = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("nSta", "number of downloading stations", nSta);
    cmd.AddValue("simTime", "traffic time (s)", simTime);
    cmd.AddValue("apQueue", "AP Wi-Fi MAC queue (packets)", apQueue);
    cmd.AddValue("cc", "newreno | cubic | vegas | bbr", cc);
    cmd.AddValue("pacing", "TcpSocketState::EnablePacing (always on for bbr)", pacing);
    cmd.AddValue("aqm", "droptail (the MAC queue, --apQueue) | fq-codel (FqCoDelQueueDisc above the MAC queue)", aqm);
    cmd.AddValue("macQueue", "Wi-Fi MAC queue (packets) under --aqm=fq-codel", macQueue);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("redWait", "RedQueueDisc::Wait (ns-3's default true; false: Floyd & Jacobson's count rule)", redWait);
    cmd.AddValue("hystart", "TcpCubic::HyStart (ns-3's default: on)", hystart);
    cmd.AddValue("ecn", "TcpSocketBase::UseEcn On (RFC 3168)", ecn);
    cmd.AddValue("rwnd", "receive buffer (segments)", rwndPkts);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.AddValue("cwndEvery", "cwnd sampling interval (s)", cwndEvery);
    cmd.AddValue("standard", "g (802.11g 24 Mbit/s) or b (802.11b 11 Mbit/s)", standard);
    cmd.AddValue("recovery", "classic (TcpClassicRecovery) | prr (TcpPrrRecovery, ns-3's default)", recovery);
    cmd.AddValue("limitedTx", "Limited Transmit (RFC 3042), TcpSocketBase::LimitedTransmit", limitedTx);
    cmd.AddValue("renoSackReset", "clear ns-3's Reno-SACK marks when a new ACK ends a dupack episode", g_renoSackReset);
    cmd.AddValue("trace", "write flow 0's sender events (tx, ack, cwnd, state, AP drops) to this file", trace);
    std::string airTrace;
    cmd.AddValue("airTrace", "write the PSDUs the AP and station 0 start to send to this file", airTrace);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(recovery != "classic" && recovery != "prr", "unknown recovery " << recovery);
    if (!trace.empty())
    {
        g_trace.open(trace);
        NS_ABORT_MSG_IF(!g_trace, "cannot write " << trace);
        g_trace.precision(9);
    }
    if (!airTrace.empty())
    {
        g_air.open(airTrace);
        NS_ABORT_MSG_IF(!g_air, "cannot write " << airTrace);
        g_air.precision(9);
    }
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    g_mss = mss;
    g_rto.assign(nSta, 0);
    g_fastRecov.assign(nSta, 0);
    g_flows.resize(nSta);
    g_frtxNext.assign(nSta, false);
    g_lastSend.resize(nSta);
    g_hadLoss.assign(nSta, false);

    TypeId tid = cc == "cubic"   ? TcpCubic::GetTypeId()
                 : cc == "vegas" ? TcpVegas::GetTypeId()
                 : cc == "bbr"   ? TcpBbr::GetTypeId()
                 : cc == "westwood" ? TcpWestwood::GetTypeId()
                 : cc == "veno"  ? TcpVeno::GetTypeId()
                 : cc == "dctcp" ? TcpDctcp::GetTypeId()
                                 : TcpNewReno::GetTypeId();
    NS_ABORT_MSG_IF(cc != "cubic" && cc != "vegas" && cc != "newreno" && cc != "bbr" && cc != "westwood" && cc != "veno" && cc != "dctcp",
                    "unknown cc " << cc);
    // Westwood+ (per-RTT samples, Tustin filter: ns-3's default filter)
    Config::SetDefault("ns3::TcpWestwood::ProtocolType", EnumValue(TcpWestwood::WESTWOODPLUS));
    NS_ABORT_MSG_IF(aqm != "droptail" && aqm != "fq-codel" && aqm != "red-ecn" && aqm != "codel-ecn",
                    "unknown aqm " << aqm);
    if (ecn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    }
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(pacing || cc == "bbr"));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tid));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId() : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(rwndPkts * mss));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwndPkts * mss));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTx));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1.0)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1.0)));

    const uint32_t macQ = aqm == "droptail" ? apQueue : macQueue;
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, macQ)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(65535));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSsrc", UintegerValue(7));

    NodeContainer server;
    server.Create(1);
    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stas;
    stas.Create(nSta);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", TimeValue(MilliSeconds(15)));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
    NetDeviceContainer wired = p2p.Install(server.Get(0), apNode.Get(0));

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    WifiHelper wifi;
    const bool b = standard == "b";
    NS_ABORT_MSG_IF(!b && standard != "g", "standard must be g or b");
    wifi.SetStandard(b ? WIFI_STANDARD_80211b : WIFI_STANDARD_80211g);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue(b ? "DsssRate11Mbps" : "ErpOfdmRate24Mbps"),
                                 "ControlMode", StringValue(b ? "DsssRate1Mbps" : "ErpOfdmRate24Mbps"));
    WifiMacHelper mac;
    Ssid ssid("wifitcp-cc");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(false),
                "ShortSlotTimeSupported", BooleanValue(!b),
                "MaxMissedBeacons", UintegerValue(std::numeric_limits<uint32_t>::max()));
    NetDeviceContainer staDevs = wifi.Install(phy, mac, stas);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(false),
                "ShortSlotTimeSupported", BooleanValue(!b));
    NetDeviceContainer apDev = wifi.Install(phy, mac, apNode);
    wifi.AssignStreams(NetDeviceContainer(apDev, staDevs), 100);

    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < nSta; ++i)
    {
        double a = 2 * M_PI * i / nSta;
        pos->Add(Vector(5 * std::cos(a), 5 * std::sin(a), 0));
    }
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(apNode);
    mob.Install(stas);

    InternetStackHelper internet;
    internet.Install(server);
    internet.Install(apNode);
    internet.Install(stas);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    addr.Assign(wired);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    addr.Assign(apDev);
    Ipv4InterfaceContainer staIf = addr.Assign(staDevs);
    TrafficControlHelper tch;
    tch.Uninstall(wired);
    tch.Uninstall(apDev);
    if (aqm == "fq-codel")
    {
        TrafficControlHelper fq;
        fq.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, apQueue)));
        QueueDiscContainer qd = fq.Install(apDev);
        g_apQd = qd.Get(0);
        NS_ABORT_MSG_IF(!qd.Get(0)->TraceConnectWithoutContext("Drop", MakeCallback(&ApQdDrop)),
                        "could not connect the queue disc's Drop trace");
    }
    else if (aqm == "red-ecn" || aqm == "codel-ecn")
    {
        TrafficControlHelper h;
        const QueueSizeValue lim(QueueSize(QueueSizeUnit::PACKETS, apQueue));
        if (aqm == "red-ecn")
        {
            h.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", lim, "MinTh", DoubleValue(5), "MaxTh",
                               DoubleValue(15), "LInterm", DoubleValue(10), "QW", DoubleValue(0.002), "Gentle",
                               BooleanValue(true), "UseEcn", BooleanValue(true), "UseHardDrop", BooleanValue(true),
                               "MeanPktSize", UintegerValue(1500), "LinkBandwidth",
                               DataRateValue(DataRate("24Mbps")), "Wait", BooleanValue(redWait));
        }
        else
        {
            h.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", lim, "UseEcn", BooleanValue(true));
        }
        QueueDiscContainer qd = h.Install(apDev);
        g_apQd = qd.Get(0);
        NS_ABORT_MSG_IF(!qd.Get(0)->TraceConnectWithoutContext("Drop", MakeCallback(&ApQdDrop)) ||
                            !qd.Get(0)->TraceConnectWithoutContext("DropBeforeEnqueue",
                                                                   MakeCallback(&ApQdDropBefore)) ||
                            !qd.Get(0)->TraceConnectWithoutContext("Mark", MakeCallback(&ApQdMark)),
                        "could not connect the queue disc's Drop traces");
    }
    tch.Uninstall(staDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    const double stopAt = warmup + simTime;
    for (uint32_t i = 0; i < nSta; ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkH.Install(stas.Get(i));
        s.Start(Seconds(0));
        s.Stop(Seconds(stopAt + 1));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(staIf.GetAddress(i), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer a = src.Install(server.Get(0));
        a.Start(Seconds(warmup));
        a.Stop(Seconds(stopAt));
        Simulator::Schedule(Seconds(warmup) + NanoSeconds(1), &HookSocket,
                            DynamicCast<BulkSendApplication>(a.Get(0)), i);
    }
    Simulator::Schedule(Seconds(warmup) + NanoSeconds(2), &SampleCwnd, cwndEvery);

    Ptr<WifiNetDevice> apWifi = DynamicCast<WifiNetDevice>(apDev.Get(0));
    Ptr<WifiMacQueue> apQ = apWifi->GetMac()->GetTxop()->GetWifiMacQueue();
    g_apMacQ = apQ;
    bool ok = apQ->TraceConnectWithoutContext("Drop", MakeCallback(&ApDrop)) &&
              apNode.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop",
                                                                                          MakeCallback(&ApTcDrop)) &&
              apNode.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                  "TcDrop", MakeCallback(&ApTcDropProbe)) &&
              apNode.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("UnicastForward",
                                                                                     MakeCallback(&ApForward)) &&
              apWifi->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&PsduTxBegin)) &&
              apWifi->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                           MakeBoundCallback(&AirTx, std::string("ap"))) &&
              DynamicCast<WifiNetDevice>(staDevs.Get(0))->GetPhy()->TraceConnectWithoutContext(
                  "PhyTxPsduBegin", MakeBoundCallback(&AirTx, std::string("sta0")));
    Ptr<Txop> staTxop = DynamicCast<WifiNetDevice>(staDevs.Get(0))->GetMac()->GetTxop();
    ok = ok &&
         apWifi->GetMac()->GetTxop()->TraceConnectWithoutContext("BackoffTrace",
                                                                 MakeBoundCallback(&AirBackoff, std::string("ap"))) &&
         staTxop->TraceConnectWithoutContext("BackoffTrace", MakeBoundCallback(&AirBackoff, std::string("sta0"))) &&
         staTxop->GetWifiMacQueue()->TraceConnectWithoutContext("Enqueue",
                                                                MakeBoundCallback(&AirEnqueue, std::string("sta0"))) &&
         apQ->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&AirEnqueue, std::string("ap")));
    for (uint32_t i = 0; i < nSta; ++i)
    {
        ok = ok && DynamicCast<WifiNetDevice>(staDevs.Get(i))->GetMac()->TraceConnectWithoutContext(
                       "Assoc", MakeCallback(&Assoc));
    }
    NS_ABORT_MSG_IF(!ok, "could not connect traces");
    Simulator::Schedule(MilliSeconds(300), &AfterAssociation, DynamicCast<ApWifiMac>(apWifi->GetMac()), nSta);

    Simulator::Stop(Seconds(stopAt));
    Simulator::Run();

    std::vector<double> gput;
    double total = 0;
    for (uint32_t i = 0; i < nSta; ++i)
    {
        double g = sinks[i]->GetTotalRx() * 8.0 / simTime / 1e6;
        gput.push_back(g);
        total += g;
    }
    uint64_t dataTx = 0, retx = 0, retxOpen = 0, resets = 0;
    for (const auto& f : g_flows)
    {
        dataTx += f.dataTx;
        retx += f.retx;
        retxOpen += f.retxOpen;
        resets += f.resets;
    }
    std::string acks;
    for (const auto& m : g_ackModes)
    {
        acks += (acks.empty() ? "" : ",") + m;
    }
    // The queue disc's drops and marks by reason (QueueDisc::Stats).
    std::string qdStats;
    if (g_apQd)
    {
        const QueueDisc::Stats& st = g_apQd->GetStats();
        const std::string child = QueueDisc::CHILD_QUEUE_DISC_DROP;
        const std::string childMark = QueueDisc::CHILD_QUEUE_DISC_MARK;
        for (const std::string& r : {std::string(RedQueueDisc::UNFORCED_DROP), std::string(RedQueueDisc::FORCED_DROP),
                                     std::string(QueueDisc::INTERNAL_QUEUE_DROP),
                                     std::string(CoDelQueueDisc::TARGET_EXCEEDED_DROP),
                                     std::string(CoDelQueueDisc::OVERLIMIT_DROP),
                                     child + CoDelQueueDisc::TARGET_EXCEEDED_DROP,
                                     child + CoDelQueueDisc::OVERLIMIT_DROP})
        {
            if (uint32_t v = st.GetNDroppedPackets(r))
            {
                qdStats += (qdStats.empty() ? "" : ",") + bench::Str("drop: " + r) + ":" + std::to_string(v);
            }
        }
        for (const std::string& r : {std::string(RedQueueDisc::UNFORCED_MARK), std::string(RedQueueDisc::FORCED_MARK),
                                     std::string(CoDelQueueDisc::TARGET_EXCEEDED_MARK),
                                     childMark + CoDelQueueDisc::TARGET_EXCEEDED_MARK})
        {
            if (uint32_t v = st.GetNMarkedPackets(r))
            {
                qdStats += (qdStats.empty() ? "" : ",") + bench::Str("mark: " + r) + ":" + std::to_string(v);
            }
        }
    }
    std::string causes;
    for (const auto& kv : g_rtoCause)
    {
        causes += (causes.empty() ? "" : ",") + bench::Str(kv.first) + ":" + std::to_string(kv.second);
    }
    std::ostringstream js;
    js << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"cc\":" << bench::Str(cc) << ",\"sack\":" << (sack ? "true" : "false")
       << ",\"n\":" << nSta << ",\"ap_queue\":" << apQueue << ",\"sim_time_s\":" << bench::Num(simTime, 3)
       << ",\"goodput_mbps\":" << bench::Arr(gput, 4) << ",\"aggregate_mbps\":" << bench::Num(total, 4)
       << ",\"jain\":" << bench::Num(bench::Jain(gput), 4) << ",\"rto_events\":" << bench::Arr(g_rto)
       << ",\"fast_recoveries\":" << bench::Arr(g_fastRecov) << ",\"ap_queue_drops\":" << g_apDrops
       << ",\"data_tx\":" << dataTx << ",\"retx\":" << retx << ",\"retx_open\":" << retxOpen
       << ",\"reno_sack_resets\":" << resets << ",\"limited_tx\":" << (limitedTx ? "true" : "false")
       << ",\"recovery\":" << bench::Str(recovery) << ",\"reno_sack_reset\":" << (g_renoSackReset ? "true" : "false")
       << ",\"cwnd_every_s\":" << bench::Num(cwndEvery, 3) << ",\"cwnd0_segments\":" << bench::Arr(g_cwndSeries, 1)
       << ",\"ack_modes\":" << bench::Str(acks) << ",\"assoc\":" << g_assoc
       << ",\"rtt_mean_ms\":" << bench::Num(g_rttN ? g_rttSum / g_rttN * 1e3 : 0.0, 3)
       << ",\"aqm\":" << bench::Str(aqm) << ",\"pacing\":" << (pacing || cc == "bbr" ? "true" : "false")
       << ",\"qdisc_stats\":{" << qdStats << "},\"red_wait\":" << (redWait ? "true" : "false")
       << ",\"frtx\":" << g_frtx << ",\"frtx_at_ap\":" << g_frtxArrived << ",\"frtx_ap_dropped\":" << g_frtxDropped
       << ",\"rto_causes\":{" << causes << "}"
       << ",\"frtx_qlen\":" << bench::Arr(g_frtxQlen) << ",\"data_qlen\":" << bench::Arr(g_dataQlen)
       << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 2) << "}";
    std::cout << js.str() << std::endl;
    Simulator::Destroy();
    return 0;
}

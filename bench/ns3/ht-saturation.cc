// wifitcp reference: saturation throughput of 802.11n with A-MPDU and immediate
// BlockAck, for the aggregation cross-check (docs/validation.md, sections 10.3 and 12).
//
// n saturated stations send 1500-byte MSDUs (LLC/SNAP included) to one sink in an
// 802.11n IBSS at 5 GHz: HT MCS --mcs (default 7), 20 MHz, long guard interval,
// one spatial stream, QoS best effort (AIFSN 3, CWmin 15, CWmax 1023), RTS/CTS
// off, aggregates of at most --ampdu MPDUs (BE_MaxAmpduSize = ampdu x the
// A-MPDU subframe of one MPDU), no A-MSDU. No IP, no ARP, no beacons (IBSS):
// traffic enters the MAC through PacketSockets as in r2-saturation.cc.
// Throughput = MSDUs delivered to the sink in [warmup, warmup + duration) x msdu
// x 8 / duration. Also reports the mean number of MPDUs per A-MPDU sent.
//
// --standard ac or ax runs the same setting over VHT (VhtMcs --mcs, long GI) or HE
// (HeMcs --mcs, 800 ns GI: ns-3's HE default is 3200 ns) on a --width MHz channel
// (20, 40, 80 or 160; channel 36, 38, 42 or 50), one spatial stream (ns-3 sends
// every VHT/HE MPDU as an S-MPDU). BE_MaxAmpduSize stays ampdu x subframe.
//
// BlockAck agreements (--primer, default on, for --ampdu > 1): station i first
// sends a burst of 8 MSDUs at i x 5 ms, so that its ADDBA Request and the sink's
// ADDBA Response are exchanged on an idle channel; the saturated sources start
// after the last burst (n x 5 ms + 10 ms, within the warm-up for n <= 50). Without
// it (--primer=0) the agreements are negotiated under saturation, where ns-3's
// AddBaResponseTimeout (1 ms) mostly expires before the sink wins the channel for
// its ADDBA Response: the originator then sends single MPDUs with Normal Ack for
// FailedAddBaTimeout (200 ms) and asks again. wifitcp models agreements that exist
// from association (crates/wifi/src/mac/hcf/mod.rs).
//
// Diagnostics (in the measured window unless named _all): mpdus_hist (data PPDUs
// by MPDU count), data_ok / bar_ok (data PPDUs and BlockAckReqs answered by the
// sink), access_events / collision_events (instants at which stations started
// data or BlockAckReq PPDUs, and those with two or more), addba_* (ADDBA frames
// sent), agreement_changes (originator agreement state changes),
// established_share (station-time with an established agreement),
// mean_queue_at_ppdu (the sender's MAC queue at each data PPDU), jain_index (of
// the MSDUs delivered per station).
#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <iostream>

using namespace ns3;

namespace
{
double g_t0 = 0;
double g_t1 = 0;
uint64_t g_rx = 0;
uint64_t g_ppdus = 0;
uint64_t g_mpdus = 0;
uint64_t g_bars = 0;
uint64_t g_mpduBytes = 0;
std::set<std::string> g_respModes;
// Diagnostics of the aggregation (docs/validation.md section 12): A-MPDU length
// histogram, ADDBA frames, agreement state changes and time in ESTABLISHED, the
// transmitter's MAC queue at each data PPDU.
std::vector<uint64_t> g_hist(65, 0);
uint64_t g_addbaReq = 0;
uint64_t g_addbaResp = 0;
uint64_t g_addbaReqAll = 0;
uint64_t g_addbaRespAll = 0;
std::vector<uint64_t> g_stateChanges(5, 0);
std::vector<int> g_state;     // per originator: OriginatorBlockAckAgreement::State or -1
std::vector<double> g_stateT; // time of the last change
double g_estabTime = 0;       // station-seconds in ESTABLISHED inside the window
double g_queueSum = 0;        // sum over data PPDUs of the sender's BE queue (packets)
std::vector<Ptr<WifiMacQueue>> g_queues;
std::vector<int> g_lastKind;  // per device: 1 = data PPDU, 2 = BlockAckReq, 0 = other
uint64_t g_dataOk = 0;        // data PPDUs answered by a BlockAck or ACK
uint64_t g_barOk = 0;         // BlockAckReqs answered by a BlockAck
uint64_t g_events = 0;        // transmission starts of stations grouped by instant
uint64_t g_collEvents = 0;    // ... of which two or more stations started together
Time g_lastStart = Seconds(-1);
uint32_t g_lastGroup = 0;
std::vector<uint64_t> g_stationRx;

bool InWindow();
NetDeviceContainer g_devs;

double
WindowOverlap(double a, double b)
{
    return std::max(0.0, std::min(b, g_t1) - std::max(a, g_t0));
}

void
AgreementState(uint32_t i, Time now, Mac48Address, uint8_t, OriginatorBlockAckAgreement::State st)
{
    double t = now.GetSeconds();
    if (g_state[i] == OriginatorBlockAckAgreement::ESTABLISHED)
    {
        g_estabTime += WindowOverlap(g_stateT[i], t);
    }
    g_state[i] = st;
    g_stateT[i] = t;
    if (InWindow())
    {
        ++g_stateChanges[st];
    }
}

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_t0 && t < g_t1;
}

void
PsduTxBegin(uint32_t dev, WifiConstPsduMap psdus, WifiTxVector txv, double)
{
    for (const auto& kv : psdus)
    {
        const WifiMacHeader& h = kv.second->GetHeader(0);
        if (dev > 0 && InWindow() && (h.IsQosData() || h.IsBlockAckReq()))
        {
            if (Simulator::Now() == g_lastStart)
            {
                if (++g_lastGroup == 2)
                {
                    ++g_collEvents;
                }
            }
            else
            {
                ++g_events;
                g_lastStart = Simulator::Now();
                g_lastGroup = 1;
            }
        }
        if (dev == 0 && (h.IsBlockAck() || h.IsAck()) && InWindow())
        {
            for (uint32_t j = 1; j < g_lastKind.size(); ++j)
            {
                if (DynamicCast<WifiNetDevice>(g_devs.Get(j))->GetMac()->GetAddress() == h.GetAddr1())
                {
                    g_dataOk += g_lastKind[j] == 1;
                    g_barOk += g_lastKind[j] == 2;
                }
            }
        }
        g_lastKind[dev] = h.IsQosData() ? 1 : (h.IsBlockAckReq() ? 2 : 0);
        if (h.IsQosData())
        {
            if (InWindow())
            {
                ++g_ppdus;
                g_mpdus += kv.second->GetNMpdus();
                g_mpduBytes += kv.second->GetSize();
                ++g_hist[std::min<std::size_t>(64, kv.second->GetNMpdus())];
                g_queueSum += g_queues[dev]->GetNPackets();
            }
        }
        else if (h.IsAction())
        {
            WifiActionHeader action;
            kv.second->GetPayload(0)->PeekHeader(action);
            if (action.GetCategory() == WifiActionHeader::BLOCK_ACK)
            {
                bool req = action.GetAction().blockAck == WifiActionHeader::BLOCK_ACK_ADDBA_REQUEST;
                bool resp =
                    action.GetAction().blockAck == WifiActionHeader::BLOCK_ACK_ADDBA_RESPONSE;
                g_addbaReqAll += req;
                g_addbaRespAll += resp;
                if (InWindow())
                {
                    g_addbaReq += req;
                    g_addbaResp += resp;
                }
            }
        }
        else if (h.IsBlockAckReq())
        {
            if (InWindow())
            {
                ++g_bars;
            }
        }
        else if (h.IsBlockAck() || h.IsAck())
        {
            g_respModes.insert(txv.GetMode().GetUniqueName());
        }
    }
}

std::map<Address, uint64_t> g_rxFrom;

void
SinkRx(Ptr<const Packet>, const Address& from)
{
    if (InWindow())
    {
        ++g_rx;
        ++g_rxFrom[from];
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    const double wall0 = bench::WallNow();
    uint32_t n = 10;
    double duration = 5.0;
    double warmup = 0.5;
    uint32_t msdu = 1500;
    uint32_t mcs = 7;
    uint32_t ampdu = 64;
    uint32_t queuePkts = 1000;
    uint32_t seed = 1;
    uint32_t run = 1;
    bool primer = true;
    std::string standard = "n";
    uint32_t width = 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("standard", "n (HT), ac (VHT) or ax (HE)", standard);
    cmd.AddValue("width", "channel width in MHz (20, 40, 80, 160)", width);
    cmd.AddValue("n", "number of saturated stations", n);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("msdu", "MSDU size in bytes including LLC/SNAP", msdu);
    cmd.AddValue("mcs", "HT MCS (one stream: 0-7)", mcs);
    cmd.AddValue("ampdu", "most MPDUs per A-MPDU (1 = no aggregation)", ampdu);
    cmd.AddValue("queue", "Wi-Fi MAC queue (packets)", queuePkts);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.AddValue("primer",
                 "set up each BlockAck agreement on an idle channel before the saturated "
                 "sources start (0 = ADDBA under saturation, ns-3's 1 ms ADDBA response "
                 "timeout then leaves agreements unset at n = 50)",
                 primer);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    g_t0 = warmup;
    g_t1 = warmup + duration;

    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePkts)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(999999));

    NodeContainer nodes;
    nodes.Create(n + 1);
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    const uint32_t chan = width == 160 ? 50 : width == 80 ? 42 : width == 40 ? 38 : 36;
    phy.Set("ChannelSettings",
            StringValue("{" + std::to_string(chan) + ", " + std::to_string(width) + ", BAND_5GHZ, 0}"));
    WifiHelper wifi;
    std::ostringstream mode;
    if (standard == "ac")
    {
        wifi.SetStandard(WIFI_STANDARD_80211ac);
        mode << "VhtMcs" << mcs;
    }
    else if (standard == "ax")
    {
        wifi.SetStandard(WIFI_STANDARD_80211ax);
        wifi.ConfigHeOptions("GuardInterval", TimeValue(NanoSeconds(800)));
        mode << "HeMcs" << mcs;
    }
    else
    {
        wifi.SetStandard(WIFI_STANDARD_80211n);
        mode << "HtMcs" << mcs;
    }
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue(mode.str()),
                                 "ControlMode", StringValue(mode.str()));
    // One MPDU: MAC header 26 (QoS) + LLC/SNAP-inclusive MSDU + FCS 4; subframe = 4-octet
    // delimiter + MPDU, padded to 4 octets.
    uint32_t mpdu = 26 + msdu + 4;
    uint32_t sub = (4 + mpdu + 3) / 4 * 4;
    uint32_t maxAmpdu = ampdu <= 1 ? 0 : ampdu * sub;
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(true), "BE_MaxAmpduSize",
                UintegerValue(maxAmpdu), "BE_MaxAmsduSize", UintegerValue(0));
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
    wifi.AssignStreams(devs, 100);

    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < n; ++i)
    {
        double a = 2 * M_PI * i / n;
        pos->Add(Vector(0.001 * std::cos(a), 0.001 * std::sin(a), 0));
    }
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(nodes);
    PacketSocketHelper ps;
    ps.Install(nodes);

    double rate = standard == "n" ? 80e6 : 2e9; // offered per station, above any share
    Time interval = Seconds((msdu * 8.0) / (rate / std::max<uint32_t>(1, n) * 4));
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetStream(7);
    PacketSocketAddress sinkAddr;
    sinkAddr.SetSingleDevice(devs.Get(0)->GetIfIndex());
    sinkAddr.SetPhysicalAddress(devs.Get(0)->GetAddress());
    sinkAddr.SetProtocol(1);
    Ptr<PacketSocketServer> server = CreateObject<PacketSocketServer>();
    server->SetLocal(sinkAddr);
    nodes.Get(0)->AddApplication(server);
    server->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs.Get(i + 1));
        PacketSocketAddress a;
        a.SetSingleDevice(d->GetIfIndex());
        a.SetPhysicalAddress(devs.Get(0)->GetAddress());
        a.SetProtocol(1);
        Ptr<PacketSocketClient> c = CreateObject<PacketSocketClient>();
        c->SetRemote(a);
        c->SetAttribute("PacketSize", UintegerValue(msdu - 8));
        c->SetAttribute("MaxPackets", UintegerValue(0));
        c->SetAttribute("Interval", TimeValue(interval));
        nodes.Get(i + 1)->AddApplication(c);
        // With the primer, station i first sends a burst of 8 MSDUs at i x 5 ms: two or more
        // queued MSDUs make ns-3 send an ADDBA Request, which the sink answers on an idle
        // channel, well inside ns-3's AddBaResponseTimeout (1 ms). The saturated source
        // starts after the last burst. Without it, the sources start at once and stations
        // request agreements under saturation.
        Time start = MicroSeconds(jitter->GetInteger(0, 1000));
        if (primer && ampdu > 1)
        {
            Ptr<PacketSocketClient> p = CreateObject<PacketSocketClient>();
            p->SetRemote(a);
            p->SetAttribute("PacketSize", UintegerValue(msdu - 8));
            p->SetAttribute("MaxPackets", UintegerValue(8));
            p->SetAttribute("Interval", TimeValue(MicroSeconds(1)));
            nodes.Get(i + 1)->AddApplication(p);
            p->SetStartTime(MilliSeconds(5 * i));
            start += MilliSeconds(5 * n + 10);
        }
        c->SetStartTime(start);
    }
    g_devs = devs;
    g_lastKind.assign(n + 1, 0);
    g_state.assign(n + 1, -1);
    g_stateT.assign(n + 1, 0.0);
    for (uint32_t i = 0; i <= n; ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs.Get(i));
        d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                MakeBoundCallback(&PsduTxBegin, i));
        Ptr<QosTxop> be = d->GetMac()->GetQosTxop(AC_BE);
        g_queues.push_back(be->GetWifiMacQueue());
        be->GetBaManager()->TraceConnectWithoutContext("AgreementState",
                                                       MakeBoundCallback(&AgreementState, i));
    }
    Simulator::Stop(Seconds(g_t1));
    const double wallRun0 = bench::WallNow();
    Simulator::Run();
    const double wallRun = bench::WallNow() - wallRun0;
    for (uint32_t i = 0; i <= n; ++i)
    {
        if (g_state[i] == OriginatorBlockAckAgreement::ESTABLISHED)
        {
            g_estabTime += WindowOverlap(g_stateT[i], g_t1);
        }
    }
    std::string hist;
    for (std::size_t m = 1; m <= 64; ++m)
    {
        if (g_hist[m])
        {
            hist += (hist.empty() ? "" : ",") + std::string("\"") + std::to_string(m) +
                    "\":" + std::to_string(g_hist[m]);
        }
    }
    std::vector<double> perStation;
    for (const auto& kv : g_rxFrom)
    {
        perStation.push_back(double(kv.second));
    }
    perStation.resize(n, 0.0);
    const double jain = bench::Jain(perStation);
    const char* stateNames[] = {"pending", "established", "no_reply", "reset", "rejected"};
    std::string states;
    for (int st = 0; st < 5; ++st)
    {
        states += (st ? "," : "") + std::string("\"") + stateNames[st] +
                  "\":" + std::to_string(g_stateChanges[st]);
    }
    std::string resp;
    for (const auto& x : g_respModes)
    {
        resp += (resp.empty() ? "" : ",") + x;
    }
    std::cout << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"scenario\":\"ht-saturation\",\"n\":" << n
              << ",\"mcs\":" << mcs << ",\"ampdu\":" << ampdu << ",\"msdu_bytes\":" << msdu
              << ",\"duration_s\":" << bench::Num(duration, 3)
              << ",\"throughput_mbps\":" << bench::Num(g_rx * msdu * 8.0 / duration / 1e6, 4)
              << ",\"ppdus\":" << g_ppdus << ",\"mpdus_per_ppdu\":"
              << bench::Num(g_ppdus ? double(g_mpdus) / g_ppdus : 0, 3)
              << ",\"block_ack_reqs\":" << g_bars << ",\"mpdus_hist\":{" << hist << "}"
              << ",\"jain_index\":" << bench::Num(jain, 4) << ",\"data_ok\":" << g_dataOk << ",\"bar_ok\":" << g_barOk
              << ",\"access_events\":" << g_events << ",\"collision_events\":" << g_collEvents
              << ",\"addba_requests\":" << g_addbaReq << ",\"addba_responses\":" << g_addbaResp
              << ",\"addba_requests_all\":" << g_addbaReqAll
              << ",\"addba_responses_all\":" << g_addbaRespAll << ",\"agreement_changes\":{"
              << states << "},\"established_share\":"
              << bench::Num(g_estabTime / (n * duration), 4) << ",\"mean_queue_at_ppdu\":"
              << bench::Num(g_ppdus ? g_queueSum / g_ppdus : 0, 1) << ",\"response_modes\":" << bench::Str(resp) << ",\"events\":" << Simulator::GetEventCount()
              << ",\"run_wall_s\":" << bench::Num(wallRun, 3)
              << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 3) << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}

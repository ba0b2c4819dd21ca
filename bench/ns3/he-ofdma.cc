// Saturated downlink or uplink over 802.11ax with and without OFDMA, ns-3 3.37:
// an AP and n stations (infrastructure BSS, associated before traffic starts),
// HE MCS --mcs on --width MHz (spectrum PHY, log-distance loss, --distance m, default 1), 0.8 us GI, one stream, 5 GHz, EDCA best effort,
// no RTS/CTS; packet sockets (no IP), --msdu-octet MSDUs (LLC/SNAP included)
// offered far above any share; BlockAck agreements set up by a short burst per
// flow before the window. --ofdma=0: single-user HE. --ofdma=1: ns-3's
// RrMultiUserScheduler at the AP (NStations --nsta-mu, default 4 as ns-3's),
// downlink acknowledged by --dl-ack (bar-ba: ACK in SU format then BlockAckReq /
// BlockAck per station; mu-bar: MU-BAR Trigger then HE TB BlockAcks;
// aggr-mu-bar: MU-BAR aggregated in the HE MU PPDU); uplink with EnableUlOfdma
// (Basic Trigger, HE TB PPDUs, multi-STA BlockAck), the AP requesting channel
// access every --access-req-ms (0: only when it has downlink data).
// --bsrp=1: the scheduler's EnableBsrp. --mu-edca-timer-us T (a multiple of
// 8192, 0: off) with --mu-aifsn, --mu-cwmin, --mu-cwmax: the AP's MU EDCA
// Parameter Set for every AC (HeConfiguration's <AC>MuEdcaTimer, Mu<AC>Aifsn,
// Mu<AC>CwMin, Mu<AC>CwMax).
// Prints one JSON line: throughput (MSDU octets per second in the window),
// per-station Mbit/s, PPDU counts by preamble.
// Build: bench/ns3/build.sh   Run: bench/ns3/build/he-ofdma --n=4 --dl=1 --ofdma=1
#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/spectrum-module.h"
#include "ns3/wifi-module.h"

#include <fstream>
#include <iostream>
#include <map>

using namespace ns3;

namespace
{
double g_t0 = 0;
double g_t1 = 0;
std::map<uint32_t, uint64_t> g_rxBy; // receiving or sending station index -> MSDUs in window
std::map<std::string, uint64_t> g_ppdus;
uint64_t g_tbMpdusSent = 0; // MPDUs sent in HE TB PSDUs in the window
uint64_t g_tbMpdusRx = 0;   // of those, decoded at the AP (monitor trace)
double g_tbUs = 0;          // summed HE TB PPDU durations (us, from L-SIG LENGTH)
// The stations' shares (HE TB PSDUs) by what they carry: QoS Data (and
// their MPDUs), a BlockAckReq alone, a QoS Null alone.
uint64_t g_tbDataShares = 0;
uint64_t g_tbDataMpdus = 0;
uint64_t g_tbBarShares = 0;
uint64_t g_tbNullShares = 0;
// Trigger frames the AP sent in the window: BSRP and Basic variants.
uint64_t g_bsrpTriggers = 0;
uint64_t g_basicTriggers = 0;
uint32_t g_key = 0;
// --trace=FILE: one line per PSDU sent (every device), per MPDU the AP
// decodes, per PHY drop (every device), in the window (bench/trace-he-tb
// reads it).
std::ofstream g_trace;
std::map<Mac48Address, uint32_t> g_index; // MAC address -> 0 (AP), 1..n (stations)
std::vector<Ptr<WifiNetDevice>> g_devs;

uint32_t
Index(Mac48Address a)
{
    auto it = g_index.find(a);
    return it == g_index.end() ? 999 : it->second;
}

// One letter per MPDU type: D QoS Data, N QoS Null, B BlockAckReq, A
// BlockAck, T Trigger, C CTS, K ACK, M management, O other.
char
Kind(const WifiMacHeader& h)
{
    if (h.IsQosData())
    {
        return h.HasData() ? 'D' : 'N';
    }
    if (h.IsBlockAckReq())
    {
        return 'B';
    }
    if (h.IsBlockAck())
    {
        return 'A';
    }
    if (h.IsTrigger())
    {
        return 'T';
    }
    if (h.IsCts())
    {
        return 'C';
    }
    if (h.IsAck())
    {
        return 'K';
    }
    if (h.IsMgt())
    {
        return 'M';
    }
    return 'O';
}

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return g_trace.is_open() && t >= g_t0 && t < g_t1;
}

// TX t_ns dev preamble ul_length then per PSDU: staId addr1 kinds n
// first_seq last_seq retries, and for a station's HE TB PSDU its BE queue
// (packets) and the BlockAck window start for the AP.
void
TraceTx(uint32_t dev, WifiConstPsduMap psdus, WifiTxVector v, double)
{
    if (!InWindow())
    {
        return;
    }
    g_trace << "TX " << Simulator::Now().GetNanoSeconds() << " " << dev << " " << int(v.GetPreambleType()) << " "
            << v.GetLength();
    for (const auto& kv : psdus)
    {
        const Ptr<const WifiPsdu>& p = kv.second;
        std::string kinds;
        uint32_t retries = 0;
        for (std::size_t i = 0; i < p->GetNMpdus(); ++i)
        {
            const WifiMacHeader& h = p->GetHeader(i);
            char k = Kind(h);
            if (kinds.empty() || kinds.back() != k)
            {
                kinds += k;
            }
            retries += h.IsRetry() ? 1 : 0;
        }
        const WifiMacHeader& h0 = p->GetHeader(0);
        const WifiMacHeader& hl = p->GetHeader(p->GetNMpdus() - 1);
        g_trace << " | " << kv.first << " " << Index(h0.GetAddr1()) << " " << kinds << " " << p->GetNMpdus() << " "
                << h0.GetSequenceNumber() << " " << hl.GetSequenceNumber() << " " << retries << " " << p->GetSize();
        if (dev > 0 && v.GetPreambleType() == WIFI_PREAMBLE_HE_TB)
        {
            Ptr<WifiMac> mac = g_devs[dev]->GetMac();
            Ptr<QosTxop> be = mac->GetQosTxop(AC_BE);
            Mac48Address ap = g_devs[0]->GetMac()->GetAddress();
            g_trace << " q " << be->GetWifiMacQueue()->GetNPackets() << " ws "
                    << (be->GetBaAgreementEstablished(ap, 0) ? be->GetBaStartingSequence(ap, 0) : 9999);
        }
    }
    g_trace << "\n";
}

// RX t_ns staId seq kind: an MPDU of an HE TB PPDU the AP decoded.
void
TraceApRx(Ptr<const Packet> pkt, uint16_t, WifiTxVector v, MpduInfo info, SignalNoiseDbm sn, uint16_t staId)
{
    if (!InWindow() || v.GetPreambleType() != WIFI_PREAMBLE_HE_TB)
    {
        return;
    }
    Ptr<Packet> copy = pkt->Copy();
    if (info.type != NORMAL_MPDU)
    {
        AmpduSubframeHeader delimiter;
        copy->RemoveHeader(delimiter);
    }
    WifiMacHeader h;
    copy->PeekHeader(h);
    g_trace << "RX " << Simulator::Now().GetNanoSeconds() << " " << staId << " " << h.GetSequenceNumber() << " "
            << Kind(h) << " " << Index(h.GetAddr2()) << " " << sn.signal << " " << sn.noise << "\n";
}

// DROP t_ns dev reason size
void
TraceDrop(uint32_t dev, Ptr<const Packet> pkt, WifiPhyRxfailureReason r)
{
    if (!InWindow())
    {
        return;
    }
    g_trace << "DROP " << Simulator::Now().GetNanoSeconds() << " " << dev << " " << r << " " << pkt->GetSize()
            << "\n";
}

// PB t_ns dev preamble psdu_duration_ns: the PHY starts receiving a payload.
void
TracePayloadBegin(uint32_t dev, WifiTxVector v, Time d)
{
    if (!InWindow())
    {
        return;
    }
    g_trace << "PB " << Simulator::Now().GetNanoSeconds() << " " << dev << " " << int(v.GetPreambleType()) << " "
            << d.GetNanoSeconds() << "\n";
}

void
SinkRx(uint32_t who, Ptr<const Packet>, const Address&)
{
    double t = Simulator::Now().GetSeconds();
    if (t >= g_t0 && t < g_t1)
    {
        g_rxBy[who]++;
    }
}

void
PsduTx(WifiConstPsduMap psdus, WifiTxVector v, double)
{
    double t = Simulator::Now().GetSeconds();
    if (t < g_t0 || t >= g_t1)
    {
        return;
    }
    std::string k;
    switch (v.GetPreambleType())
    {
    case WIFI_PREAMBLE_HE_MU:
        k = "he_mu";
        break;
    case WIFI_PREAMBLE_HE_TB:
        k = "he_tb";
        break;
    case WIFI_PREAMBLE_HE_SU:
        k = "he_su";
        break;
    default:
        k = "non_ht";
    }
    g_ppdus[k]++;
    for (const auto& kv : psdus)
    {
        if (kv.second->GetNMpdus() == 1 && kv.second->GetHeader(0).IsTrigger())
        {
            CtrlTriggerHeader tf;
            kv.second->GetPayload(0)->PeekHeader(tf);
            g_bsrpTriggers += tf.IsBsrp() ? 1 : 0;
            g_basicTriggers += tf.IsBasic() ? 1 : 0;
        }
    }
    if (v.GetPreambleType() == WIFI_PREAMBLE_HE_TB)
    {
        for (const auto& kv : psdus)
        {
            g_tbMpdusSent += kv.second->GetNMpdus();
            const WifiMacHeader& h = kv.second->GetHeader(0);
            if (h.IsBlockAckReq())
            {
                g_tbBarShares++;
            }
            else if (h.IsQosData() && !h.HasData())
            {
                g_tbNullShares++;
            }
            else
            {
                g_tbDataShares++;
                g_tbDataMpdus += kv.second->GetNMpdus();
            }
        }
        g_tbUs += 20.0 + 4.0 * std::ceil((v.GetLength() + 3 + 2) / 3.0);
    }
}

void
ApSniffRx(Ptr<const Packet>, uint16_t, WifiTxVector v, MpduInfo, SignalNoiseDbm, uint16_t)
{
    double t = Simulator::Now().GetSeconds();
    if (t >= g_t0 && t < g_t1 && v.GetPreambleType() == WIFI_PREAMBLE_HE_TB)
    {
        g_tbMpdusRx++;
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 4;
    bool dl = true;
    bool ofdma = false;
    std::string dlAck = "mu-bar";
    uint32_t nstaMu = 4;
    double accessReqMs = 0;
    uint32_t mcs = 11;
    uint32_t width = 80;
    uint32_t msdu = 1508;
    double warmup = 1.5;
    double duration = 2.0;
    uint32_t run = 1;
    uint32_t maxAmpdu = 65535;
    double distance = 1.0;
    bool bsrp = false;
    uint32_t muEdcaTimerUs = 0;
    uint32_t muAifsn = 0;
    uint32_t muCwMin = 15;
    uint32_t muCwMax = 1023;
    std::string trace;
    CommandLine cmd(__FILE__);
    cmd.AddValue("n", "stations", n);
    cmd.AddValue("dl", "1: downlink (AP to stations), 0: uplink", dl);
    cmd.AddValue("ofdma", "1: RrMultiUserScheduler at the AP", ofdma);
    cmd.AddValue("dl-ack", "bar-ba | mu-bar | aggr-mu-bar", dlAck);
    cmd.AddValue("nsta-mu", "RrMultiUserScheduler NStations", nstaMu);
    cmd.AddValue("access-req-ms", "MultiUserScheduler AccessReqInterval (ms), 0 none", accessReqMs);
    cmd.AddValue("mcs", "HE MCS", mcs);
    cmd.AddValue("width", "channel width (MHz)", width);
    cmd.AddValue("msdu", "MSDU octets (LLC/SNAP included)", msdu);
    cmd.AddValue("max-ampdu", "BE_MaxAmpduSize (octets)", maxAmpdu);
    cmd.AddValue("warmup", "seconds before the window (association, agreements)", warmup);
    cmd.AddValue("duration", "measured seconds", duration);
    cmd.AddValue("run", "RNG run", run);
    cmd.AddValue("trace", "file for the per-PSDU trace (empty: none)", trace);
    cmd.AddValue("distance", "stations on a circle of this radius (m) around the AP", distance);
    cmd.AddValue("bsrp", "RrMultiUserScheduler EnableBsrp", bsrp);
    cmd.AddValue("mu-edca-timer-us", "MU EDCA Timer of every AC (us, multiple of 8192; 0: off)", muEdcaTimerUs);
    cmd.AddValue("mu-aifsn", "MU AIFSN of every AC (0: EDCA disabled while the timer runs)", muAifsn);
    cmd.AddValue("mu-cwmin", "MU CWmin of every AC", muCwMin);
    cmd.AddValue("mu-cwmax", "MU CWmax of every AC", muCwMax);
    cmd.Parse(argc, argv);
    const double wall0 = bench::WallNow();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    g_t0 = warmup;
    g_t1 = warmup + duration;

    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1000)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(999999));
    for (const char* ac : {"Be", "Bk", "Vi", "Vo"})
    {
        const std::string c = std::string("ns3::HeConfiguration::");
        Config::SetDefault(c + ac + "MuEdcaTimer", TimeValue(MicroSeconds(muEdcaTimerUs)));
        Config::SetDefault(c + "Mu" + ac + "Aifsn", UintegerValue(muAifsn));
        Config::SetDefault(c + "Mu" + ac + "CwMin", UintegerValue(muCwMin));
        Config::SetDefault(c + "Mu" + ac + "CwMax", UintegerValue(muCwMax));
    }
    if (dlAck == "bar-ba")
    {
        Config::SetDefault("ns3::WifiDefaultAckManager::DlMuAckSequenceType",
                           EnumValue(WifiAcknowledgment::DL_MU_BAR_BA_SEQUENCE));
    }
    else if (dlAck == "mu-bar")
    {
        Config::SetDefault("ns3::WifiDefaultAckManager::DlMuAckSequenceType",
                           EnumValue(WifiAcknowledgment::DL_MU_TF_MU_BAR));
    }
    else
    {
        Config::SetDefault("ns3::WifiDefaultAckManager::DlMuAckSequenceType",
                           EnumValue(WifiAcknowledgment::DL_MU_AGGREGATE_TF));
    }

    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer staNodes;
    staNodes.Create(n);
    // The spectrum PHY: ns-3 3.37 receives HE TB PPDUs per RU only there.
    Ptr<MultiModelSpectrumChannel> spectrum = CreateObject<MultiModelSpectrumChannel>();
    spectrum->AddPropagationLossModel(CreateObject<LogDistancePropagationLossModel>());
    spectrum->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
    SpectrumWifiPhyHelper phy;
    phy.SetChannel(spectrum);
    const uint32_t chan = width == 160 ? 50 : width == 80 ? 42 : width == 40 ? 38 : 36;
    phy.Set("ChannelSettings", StringValue("{" + std::to_string(chan) + ", " + std::to_string(width) + ", BAND_5GHZ, 0}"));
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211ax);
    wifi.ConfigHeOptions("GuardInterval", TimeValue(NanoSeconds(800)));
    std::string mode = "HeMcs" + std::to_string(mcs);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue(mode), "ControlMode",
                                 StringValue(mode));
    Ssid ssid("ofdma");
    WifiMacHelper mac;
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize", UintegerValue(maxAmpdu),
                "BE_MaxAmsduSize", UintegerValue(0));
    NetDeviceContainer staDevs = wifi.Install(phy, mac, staNodes);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "EnableBeaconJitter", BooleanValue(false),
                "BE_MaxAmpduSize", UintegerValue(maxAmpdu), "BE_MaxAmsduSize", UintegerValue(0));
    if (ofdma)
    {
        mac.SetMultiUserScheduler("ns3::RrMultiUserScheduler", "NStations", UintegerValue(nstaMu),
                                  "EnableUlOfdma", BooleanValue(!dl), "EnableBsrp", BooleanValue(bsrp),
                                  "AccessReqInterval", TimeValue(MicroSeconds(uint64_t(accessReqMs * 1000))));
    }
    NetDeviceContainer apDev = wifi.Install(phy, mac, apNode);
    NetDeviceContainer all(apDev, staDevs);
    wifi.AssignStreams(all, 100);

    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < n; ++i)
    {
        double a = 2 * M_PI * i / n;
        pos->Add(Vector(distance * std::cos(a), distance * std::sin(a), 0));
    }
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    NodeContainer nodes(apNode, staNodes);
    mob.Install(nodes);
    PacketSocketHelper ps;
    ps.Install(nodes);

    // One flow per station: AP -> station i (downlink) or station i -> AP.
    Time interval = Seconds(msdu * 8.0 / 2e9 * n);
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<NetDevice> src = dl ? apDev.Get(0) : staDevs.Get(i);
        Ptr<NetDevice> dst = dl ? staDevs.Get(i) : apDev.Get(0);
        Ptr<Node> srcNode = dl ? apNode.Get(0) : staNodes.Get(i);
        Ptr<Node> dstNode = dl ? staNodes.Get(i) : apNode.Get(0);
        PacketSocketAddress sinkAddr;
        sinkAddr.SetSingleDevice(dst->GetIfIndex());
        sinkAddr.SetPhysicalAddress(dst->GetAddress());
        sinkAddr.SetProtocol(1 + i);
        Ptr<PacketSocketServer> server = CreateObject<PacketSocketServer>();
        server->SetLocal(sinkAddr);
        dstNode->AddApplication(server);
        server->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SinkRx, i));
        PacketSocketAddress a;
        a.SetSingleDevice(src->GetIfIndex());
        a.SetPhysicalAddress(dst->GetAddress());
        a.SetProtocol(1 + i);
        // A burst of 8 MSDUs per flow, 20 ms apart, sets up its agreement on an
        // idle channel; the saturated source starts after the last burst.
        Ptr<PacketSocketClient> p = CreateObject<PacketSocketClient>();
        p->SetRemote(a);
        p->SetAttribute("PacketSize", UintegerValue(msdu - 8));
        p->SetAttribute("MaxPackets", UintegerValue(8));
        p->SetAttribute("Interval", TimeValue(MicroSeconds(1)));
        srcNode->AddApplication(p);
        p->SetStartTime(MilliSeconds(500 + 20 * i));
        Ptr<PacketSocketClient> c = CreateObject<PacketSocketClient>();
        c->SetRemote(a);
        c->SetAttribute("PacketSize", UintegerValue(msdu - 8));
        c->SetAttribute("MaxPackets", UintegerValue(0));
        c->SetAttribute("Interval", TimeValue(interval));
        srcNode->AddApplication(c);
        c->SetStartTime(MilliSeconds(500 + 20 * n + 10) + MicroSeconds(37 * i));
    }
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(all.Get(i));
        d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&PsduTx));
    }
    DynamicCast<WifiNetDevice>(apDev.Get(0))
        ->GetPhy()
        ->TraceConnectWithoutContext("MonitorSnifferRx", MakeCallback(&ApSniffRx));
    if (!trace.empty())
    {
        g_trace.open(trace);
        for (uint32_t i = 0; i < all.GetN(); ++i)
        {
            Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(all.Get(i));
            g_devs.push_back(d);
            g_index[Mac48Address::ConvertFrom(d->GetAddress())] = i;
            d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&TraceTx, i));
            d->GetPhy()->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&TraceDrop, i));
            d->GetPhy()->TraceConnectWithoutContext("PhyRxPayloadBegin", MakeBoundCallback(&TracePayloadBegin, i));
        }
        g_devs[0]->GetPhy()->TraceConnectWithoutContext("MonitorSnifferRx", MakeCallback(&TraceApRx));
    }
    Simulator::Stop(Seconds(g_t1));
    Simulator::Run();
    uint64_t total = 0;
    std::vector<double> per;
    for (uint32_t i = 0; i < n; ++i)
    {
        total += g_rxBy[i];
        per.push_back(g_rxBy[i] * msdu * 8.0 / duration / 1e6);
    }
    std::string pp;
    for (const auto& kv : g_ppdus)
    {
        pp += (pp.empty() ? "" : ",") + std::string("\"") + kv.first + "\":" + std::to_string(kv.second);
    }
    std::cout << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"scenario\":\"he-ofdma\",\"n\":" << n
              << ",\"dl\":" << dl << ",\"ofdma\":" << ofdma << ",\"dl_ack\":" << bench::Str(dlAck)
              << ",\"nsta_mu\":" << nstaMu << ",\"access_req_ms\":" << bench::Num(accessReqMs, 3)
              << ",\"bsrp\":" << bsrp << ",\"mu_edca_timer_us\":" << muEdcaTimerUs << ",\"mu_aifsn\":" << muAifsn
              << ",\"distance_m\":" << bench::Num(distance, 2) << ",\"mcs\":" << mcs << ",\"width\":" << width << ",\"msdu_bytes\":" << msdu
              << ",\"duration_s\":" << bench::Num(duration, 3) << ",\"run\":" << run
              << ",\"throughput_mbps\":" << bench::Num(total * msdu * 8.0 / duration / 1e6, 4)
              << ",\"per_station_mbps\":" << bench::Arr(per, 3) << ",\"jain_index\":" << bench::Num(bench::Jain(per), 4)
              << ",\"ppdus\":{" << pp << "},\"tb_mpdus_sent\":" << g_tbMpdusSent
              << ",\"tb_mpdus_rx\":" << g_tbMpdusRx << ",\"tb_shares\":{\"data\":" << g_tbDataShares
              << ",\"data_mpdus\":" << g_tbDataMpdus << ",\"bar\":" << g_tbBarShares << ",\"qos_null\":" << g_tbNullShares
              << "}"
              << ",\"triggers\":{\"basic\":" << g_basicTriggers << ",\"bsrp\":" << g_bsrpTriggers << "}"
              << ",\"tb_mean_us\":" << bench::Num(g_ppdus["he_tb"] ? g_tbUs / g_ppdus["he_tb"] : 0.0, 1)
              << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 2) << "}"
              << std::endl;
    Simulator::Destroy();
    return 0;
}

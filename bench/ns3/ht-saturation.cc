// wifitcp reference: saturation throughput of 802.11n with A-MPDU and immediate
// BlockAck, for the aggregation cross-check (802.11n/e work; docs/validation.md).
//
// n saturated stations send 1500-byte MSDUs (LLC/SNAP included) to one sink in an
// 802.11n IBSS at 5 GHz: HT MCS --mcs (default 7), 20 MHz, long guard interval,
// one spatial stream, QoS best effort (AIFSN 3, CWmin 15, CWmax 1023), RTS/CTS
// off, aggregates of at most --ampdu MPDUs (BE_MaxAmpduSize = ampdu x the
// A-MPDU subframe of one MPDU), no A-MSDU. No IP, no ARP, no beacons (IBSS):
// traffic enters the MAC through PacketSockets as in r2-saturation.cc.
// Throughput = MSDUs delivered to the sink in [warmup, warmup + duration) x msdu
// x 8 / duration. Also reports the mean number of MPDUs per A-MPDU sent.
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

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_t0 && t < g_t1;
}

void
PsduTxBegin(WifiConstPsduMap psdus, WifiTxVector txv, double)
{
    for (const auto& kv : psdus)
    {
        const WifiMacHeader& h = kv.second->GetHeader(0);
        if (h.IsQosData())
        {
            if (InWindow())
            {
                ++g_ppdus;
                g_mpdus += kv.second->GetNMpdus();
                g_mpduBytes += kv.second->GetSize();
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

void
SinkRx(Ptr<const Packet>, const Address&)
{
    if (InWindow())
    {
        ++g_rx;
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
    CommandLine cmd(__FILE__);
    cmd.AddValue("n", "number of saturated stations", n);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("msdu", "MSDU size in bytes including LLC/SNAP", msdu);
    cmd.AddValue("mcs", "HT MCS (one stream: 0-7)", mcs);
    cmd.AddValue("ampdu", "most MPDUs per A-MPDU (1 = no aggregation)", ampdu);
    cmd.AddValue("queue", "Wi-Fi MAC queue (packets)", queuePkts);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
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
    phy.Set("ChannelSettings", StringValue("{36, 20, BAND_5GHZ, 0}"));
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211n);
    std::ostringstream mode;
    mode << "HtMcs" << mcs;
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

    double rate = 80e6; // offered per station, above any share of MCS 7
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
        c->SetStartTime(MicroSeconds(jitter->GetInteger(0, 1000)));
    }
    for (uint32_t i = 0; i <= n; ++i)
    {
        DynamicCast<WifiNetDevice>(devs.Get(i))
            ->GetPhy()
            ->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&PsduTxBegin));
    }
    Simulator::Stop(Seconds(g_t1));
    const double wallRun0 = bench::WallNow();
    Simulator::Run();
    const double wallRun = bench::WallNow() - wallRun0;
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
              << ",\"block_ack_reqs\":" << g_bars << ",\"response_modes\":" << bench::Str(resp) << ",\"events\":" << Simulator::GetEventCount()
              << ",\"run_wall_s\":" << bench::Num(wallRun, 3)
              << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 3) << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}

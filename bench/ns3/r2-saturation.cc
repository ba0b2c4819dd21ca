// wifitcp reference scenario R2 for ns-3.37: DCF saturation throughput (Bianchi setting).
//
// n saturated stations send 1500-byte MSDUs to one sink in an 802.11a IBSS
// (54 Mbit/s data, basic-rate rule for the ACK, RTS/CTS off); --standard=b gives
// an 802.11b IBSS (pass --dataMode=DsssRate11Mbps --ctrlMode=DsssRate1Mbps
// --cwMin=31), whose ACKs ns-3 sends at the data rate (no BSS basic rate set). No IP, no ARP,
// no beacons: traffic enters the MAC through PacketSockets, like ns-3's own
// wifi-bianchi example, so the only frames on the air are data and ACKs.
//
// MSDU size: the brief counts the LLC/SNAP header inside the 1500-byte MSDU, so the
// PacketSocket payload is msdu - 8 = 1492 bytes and the MPDU is 1500 + 24 + 4 = 1528 bytes.
// Throughput = MSDUs delivered to the sink in [warmup, warmup+duration) * msdu * 8 / duration.
// Collision probability p = unacknowledged data attempts / data attempts (no channel
// errors here, so every failure is a collision).
//
// The hidden-terminal reference (docs/validation.md 9.2) is
// this program with --n=2 --label=hidden --rts (RtsCtsThreshold, bytes: 0 =
// RTS/CTS for every frame) and --radius: the stations at (+radius, 0) and
// (-radius, 0). With
// ns-3's defaults (LogDistance exponent 3, 46.68 dB at 1 m, 16.02 dBm, the
// threshold preamble detection at -82 dBm and 4 dB SNR, CCA-ED at -62 dBm) a
// station 40 m from the sink receives the other's frames at -87.8 dBm: below
// preamble detection and CCA-ED, so the two are hidden from each other, while
// both reach the sink at -78.7 dBm (16 dB SNR). At radius 20 m they are 40 m
// apart (-78.7 dBm) and hear each other.
//
// Long links (docs/validation.md 9.3, propagation delay): --rss=DBM replaces the
// channel's loss by ns3::FixedRssLossModel (every frame at every node at DBM,
// so everyone hears everyone whatever the distance) while the channel keeps
// ns-3's ConstantSpeedPropagationDelayModel (d / 299792458 m/s); --slot=US sets
// WifiPhy's Slot after the standard is configured (9 + 3 x coverage class for
// 802.11a), which ns-3 uses for AIFS, EIFS and its ACK timeout (SIFS + slot +
// the ACK's preamble and PHY header).

#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <iostream>
#include <map>
#include <set>

using namespace ns3;

namespace
{

double g_t0 = 0;
double g_t1 = 0;
std::vector<uint64_t> g_attempts;
std::vector<uint64_t> g_failed;
std::vector<uint64_t> g_rx;
uint64_t g_finalFailed = 0;
std::map<Mac48Address, uint32_t> g_index;
std::set<std::string> g_ackModes;
std::set<std::string> g_dataModes;

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_t0 && t < g_t1;
}

void
PsduTxBegin(uint32_t sta, WifiConstPsduMap psdus, WifiTxVector txv, double)
{
    for (const auto& kv : psdus)
    {
        const WifiMacHeader& h = kv.second->GetHeader(0);
        if (h.IsAck())
        {
            g_ackModes.insert(txv.GetMode().GetUniqueName());
        }
        else if (h.IsData())
        {
            g_dataModes.insert(txv.GetMode().GetUniqueName());
            if (InWindow())
            {
                ++g_attempts[sta];
            }
        }
    }
}

void
DataFailed(uint32_t sta, Mac48Address)
{
    if (InWindow())
    {
        ++g_failed[sta];
    }
}

void
FinalFailed(Mac48Address)
{
    if (InWindow())
    {
        ++g_finalFailed;
    }
}

void
SinkRx(Ptr<const Packet>, const Address& from)
{
    if (!InWindow())
    {
        return;
    }
    PacketSocketAddress psa = PacketSocketAddress::ConvertFrom(from);
    auto it = g_index.find(Mac48Address::ConvertFrom(psa.GetPhysicalAddress()));
    if (it != g_index.end())
    {
        ++g_rx[it->second];
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    const double wall0 = bench::WallNow();

    uint32_t n = 50;
    double duration = 20.0;
    double warmup = 0.0;
    uint32_t msdu = 1500;        // bytes incl. 8-byte LLC/SNAP
    std::string dataMode = "OfdmRate54Mbps";
    std::string ctrlMode = "OfdmRate24Mbps"; // RTS only; ACK follows the basic-rate rule
    uint32_t cwMin = 15;
    uint32_t cwMax = 1023;
    uint32_t maxSsrc = 7;
    uint32_t maxSlrc = 4;
    uint32_t queuePkts = 100;
    double load = 4.0; // offered load per station relative to 1/n of 30 Mbit/s
    // Stations 1 mm from the sink: no propagation delay, as in wifitcp (and
    // Bianchi's model). At 1 m, ns-3's nanosecond delay differences let a
    // station sense a same-slot competitor before its own slot boundary,
    // which lowers the collision probability at n = 50 from 0.614 to 0.593
    // (n = 20: 0.471 to 0.463); docs/performance.md.
    double radius = 0.001;
    uint32_t rts = 65535;
    std::string label = "R2";
    uint32_t seed = 1;
    uint32_t run = 1;
    std::string standard = "a"; // a | b (802.11b: pass dataMode, ctrlMode and cwMin=31)
    double rss = 0;             // dBm; 0: the default channel's loss model
    double slotUs = 0;          // us; 0: the standard's slot

    CommandLine cmd(__FILE__);
    cmd.AddValue("standard", "PHY: a (802.11a) or b (802.11b)", standard);
    cmd.AddValue("n", "number of saturated stations", n);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("msdu", "MSDU size in bytes including LLC/SNAP", msdu);
    cmd.AddValue("dataMode", "data WifiMode", dataMode);
    cmd.AddValue("ctrlMode", "ConstantRateWifiManager ControlMode (RTS)", ctrlMode);
    cmd.AddValue("cwMin", "DCF CWmin", cwMin);
    cmd.AddValue("cwMax", "DCF CWmax", cwMax);
    cmd.AddValue("maxSsrc", "short retry limit", maxSsrc);
    cmd.AddValue("maxSlrc", "long retry limit", maxSlrc);
    cmd.AddValue("queue", "Wi-Fi MAC queue (packets)", queuePkts);
    cmd.AddValue("load", "offered load factor (>1 keeps every queue non-empty)", load);
    cmd.AddValue("radius", "distance of stations from the sink (m)", radius);
    cmd.AddValue("rts", "RtsCtsThreshold in bytes (0: RTS/CTS for every frame)", rts);
    cmd.AddValue("label", "scenario name in the JSON output", label);
    cmd.AddValue("rss", "FixedRssLossModel received power in dBm (0: LogDistance default)", rss);
    cmd.AddValue("slot", "WifiPhy Slot in us (0: the standard's)", slotUs);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(msdu <= 8, "msdu must exceed the LLC/SNAP header");

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    g_t0 = warmup;
    g_t1 = warmup + duration;
    g_attempts.assign(n, 0);
    g_failed.assign(n, 0);
    g_rx.assign(n, 0);

    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePkts)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(rts));
    Config::SetDefault("ns3::WifiRemoteStationManager::FragmentationThreshold",
                       UintegerValue(65535));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSsrc", UintegerValue(maxSsrc));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSlrc", UintegerValue(maxSlrc));

    NodeContainer nodes;
    nodes.Create(n + 1); // node 0 = sink

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    if (rss != 0)
    {
        channel = YansWifiChannelHelper();
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
        channel.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(rss));
    }
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());

    WifiHelper wifi;
    NS_ABORT_MSG_IF(standard != "a" && standard != "b", "standard must be a or b");
    wifi.SetStandard(standard == "b" ? WIFI_STANDARD_80211b : WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue(dataMode),
                                 "ControlMode", StringValue(ctrlMode));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false));
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
    wifi.AssignStreams(devs, 100);
    for (uint32_t i = 0; i < devs.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs.Get(i));
        d->GetMac()->GetTxop()->SetMinCw(cwMin);
        d->GetMac()->GetTxop()->SetMaxCw(cwMax);
        if (slotUs > 0)
        {
            d->GetPhy()->SetSlot(NanoSeconds(int64_t(slotUs * 1000 + 0.5)));
        }
    }

    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < n; ++i)
    {
        double a = 2 * M_PI * i / n;
        pos->Add(Vector(radius * std::cos(a), radius * std::sin(a), 0));
    }
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(nodes);

    PacketSocketHelper ps;
    ps.Install(nodes);

    // Offered load per station: load * (30 Mbit/s / n) in MSDUs, i.e. well above the
    // saturation share so that every MAC queue stays non-empty from the first ms.
    double perStaPps = load * 30e6 / (msdu * 8.0) / n;
    Time interval = Seconds(1.0 / perStaPps);
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetStream(7);

    PacketSocketAddress sinkAddr;
    sinkAddr.SetSingleDevice(devs.Get(0)->GetIfIndex());
    sinkAddr.SetPhysicalAddress(devs.Get(0)->GetAddress());
    sinkAddr.SetProtocol(1);
    Ptr<PacketSocketServer> server = CreateObject<PacketSocketServer>();
    server->SetLocal(sinkAddr);
    nodes.Get(0)->AddApplication(server);
    NS_ABORT_MSG_IF(!server->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx)),
                    "trace connect failed");

    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs.Get(i + 1));
        g_index[Mac48Address::ConvertFrom(d->GetAddress())] = i;
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

        NS_ABORT_MSG_IF(!d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                MakeBoundCallback(&PsduTxBegin, i)),
                        "trace connect failed");
        NS_ABORT_MSG_IF(!d->GetRemoteStationManager()->TraceConnectWithoutContext(
            "MacTxDataFailed", MakeBoundCallback(&DataFailed, i)),
                        "trace connect failed");
        NS_ABORT_MSG_IF(!d->GetRemoteStationManager()->TraceConnectWithoutContext("MacTxFinalDataFailed",
                                                                 MakeCallback(&FinalFailed)),
                        "trace connect failed");
    }
    // Record the ACK rate the sink uses.
    g_attempts.push_back(0); // slot for the sink (never sends data)
    Ptr<WifiPhy> sinkPhy = DynamicCast<WifiNetDevice>(devs.Get(0))->GetPhy();
    NS_ABORT_MSG_IF(!sinkPhy->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                         MakeBoundCallback(&PsduTxBegin, n)),
                    "trace connect failed");

    Simulator::Stop(Seconds(g_t1));
    const double wallRun0 = bench::WallNow();
    Simulator::Run();
    const double wallRun = bench::WallNow() - wallRun0;
    const uint64_t events = Simulator::GetEventCount();

    uint64_t att = 0, fail = 0, rx = 0;
    std::vector<double> perSta, pSta;
    for (uint32_t i = 0; i < n; ++i)
    {
        att += g_attempts[i];
        fail += g_failed[i];
        rx += g_rx[i];
        perSta.push_back(g_rx[i] * msdu * 8.0 / duration / 1e6);
        pSta.push_back(g_attempts[i] ? double(g_failed[i]) / g_attempts[i] : 0.0);
    }
    double thr = rx * msdu * 8.0 / duration / 1e6;
    Ptr<WifiNetDevice> d1 = DynamicCast<WifiNetDevice>(devs.Get(1));
    auto join = [](const std::set<std::string>& s) {
        std::string o;
        for (const auto& x : s)
        {
            o += (o.empty() ? "" : ",") + x;
        }
        return o;
    };

    std::ostringstream js;
    js << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"scenario\":" << bench::Str(label) << ",\"n\":" << n
       << ",\"duration_s\":" << bench::Num(duration, 3) << ",\"msdu_bytes\":" << msdu
       << ",\"throughput_mbps\":" << bench::Num(thr, 4)
       << ",\"payload_throughput_mbps\":" << bench::Num(rx * (msdu - 8) * 8.0 / duration / 1e6, 4)
       << ",\"msdus\":" << rx << ",\"per_station_mbps\":" << bench::Arr(perSta, 4)
       << ",\"jain\":" << bench::Num(bench::Jain(perSta), 4)
       << ",\"min_mbps\":" << bench::Num(*std::min_element(perSta.begin(), perSta.end()), 4)
       << ",\"max_mbps\":" << bench::Num(*std::max_element(perSta.begin(), perSta.end()), 4)
       << ",\"data_attempts\":" << att << ",\"data_failed\":" << fail
       << ",\"retry_drops\":" << g_finalFailed
       << ",\"coll_prob\":" << bench::Num(att ? double(fail) / att : 0, 5)
       << ",\"coll_prob_sta_min\":" << bench::Num(*std::min_element(pSta.begin(), pSta.end()), 5)
       << ",\"coll_prob_sta_max\":" << bench::Num(*std::max_element(pSta.begin(), pSta.end()), 5)
       << ",\"coll_prob_def\":\"unacked data attempts / data attempts, summed over stations, in the window\""
       << ",\"events\":" << events << ",\"run_wall_s\":" << bench::Num(wallRun, 3)
       << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 3)
       << ",\"check\":{\"slot_us\":" << d1->GetPhy()->GetSlot().GetMicroSeconds()
       << ",\"sifs_us\":" << d1->GetPhy()->GetSifs().GetMicroSeconds()
       << ",\"cw_min\":" << d1->GetMac()->GetTxop()->GetMinCw()
       << ",\"cw_max\":" << d1->GetMac()->GetTxop()->GetMaxCw()
       << ",\"aifsn\":" << +d1->GetMac()->GetTxop()->GetAifsn()
       << ",\"data_modes\":" << bench::Str(join(g_dataModes))
       << ",\"ack_modes\":" << bench::Str(join(g_ackModes))
       << ",\"offered_pps_per_sta\":" << bench::Num(perStaPps, 2) << "}"
       << ",\"config\":{\"seed\":" << seed << ",\"run\":" << run << ",\"warmup_s\":"
       << bench::Num(warmup, 3) << ",\"queue_pkts\":" << queuePkts << ",\"rts\":" << rts << ",\"radius_m\":" << bench::Num(radius, 3) << ",\"rss_dbm\":" << bench::Num(rss, 2) << "}}";
    std::cout << js.str() << std::endl;
    Simulator::Destroy();
    return 0;
}

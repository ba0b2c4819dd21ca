// wifitcp reference scenario R1 for ns-3.37: uplink TCP unfairness in an 802.11g BSS
// (Keceli, Inan & Ayanoglu, 15 uplink NewReno flows, AP interface queue 50 packets).
//
// Topology: n STAs --802.11g (ERP-OFDM 24 Mbit/s, DCF, RTS off)--> AP --p2p 100 Mbit/s, 15 ms--> server.
// One bulk TCP upload per STA to its own sink port on the server.
//
// Timeline: [0, warmup) association only (not measured); flow i (0-based) starts at
// warmup + i*gap and every flow stops at warmup + simTime. Goodput of flow i is
// bytes delivered to its sink * 8 / simTime (the measured window, as wifitcp's
// per-flow goodput over [warm-up, end]); the aggregate is their sum. The same over each
// flow's active time (simTime - i*gap) is printed as goodput_active_mbps/jain_active.
//
// Every setting that differs from an ns-3 default, and every default the result
// depends on, is set explicitly below and echoed in the JSON "config" object.
// See docs/performance.md for the mapping to wifitcp and ns-2.

#include "common.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <iostream>
#include <set>

using namespace ns3;

namespace
{

double g_statsStart = 0; ///< MAC statistics are counted from this time (s)
uint64_t g_dataAttempts = 0;
uint64_t g_dataAttemptsAp = 0;
uint64_t g_dataFailed = 0;
uint64_t g_dataFailedAp = 0;
uint64_t g_dataFinalFailed = 0;
uint64_t g_apQueueDrops = 0; ///< drops at the AP Wi-Fi MAC queue (full) + AP traffic-control layer
uint64_t g_apQueueExpired = 0;
std::set<std::string> g_ackModes;
std::set<std::string> g_dataModes;
std::vector<uint32_t> g_rto;
std::vector<uint32_t> g_fastRecov;
uint32_t g_assoc = 0;

bool
Measuring()
{
    return Simulator::Now().GetSeconds() >= g_statsStart;
}

void
PsduTxBegin(bool isAp, WifiConstPsduMap psdus, WifiTxVector txv, double /*w*/)
{
    for (const auto& kv : psdus)
    {
        const WifiMacHeader& h = kv.second->GetHeader(0);
        if (h.IsAck())
        {
            if (Measuring()) // association (1 Mbit/s management frames) excluded
            {
                g_ackModes.insert(txv.GetMode().GetUniqueName());
            }
        }
        else if (h.IsData() && !h.GetAddr1().IsGroup())
        {
            g_dataModes.insert(txv.GetMode().GetUniqueName());
            if (Measuring())
            {
                ++g_dataAttempts;
                g_dataAttemptsAp += isAp;
            }
        }
    }
}

void
DataFailed(bool isAp, Mac48Address)
{
    if (Measuring())
    {
        ++g_dataFailed;
        g_dataFailedAp += isAp;
    }
}

void
DataFinalFailed(Mac48Address)
{
    if (Measuring())
    {
        ++g_dataFinalFailed;
    }
}

void
ApDrop(Ptr<const WifiMpdu>)
{
    ++g_apQueueDrops;
}

void
ApTcDrop(Ptr<const Packet>)
{
    ++g_apQueueDrops;
}

void
ApExpired(Ptr<const WifiMpdu>)
{
    ++g_apQueueExpired;
}

void
Assoc(Mac48Address)
{
    ++g_assoc;
}

void
CongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_rto[flow];
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_fastRecov[flow];
    }
}

void
HookSocket(Ptr<BulkSendApplication> app, uint32_t flow)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "bulk-send socket not created");
    NS_ABORT_MSG_IF(!s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, flow)),
                    "trace connect failed");
}

/// Stop beacons once every STA is associated (beacons are not part of the
/// modelled DCF/TCP scenario; STAs are told never to give up on missed beacons).
void
AfterAssociation(Ptr<ApWifiMac> ap, uint32_t nSta, bool keepBeacons)
{
    if (g_assoc >= nSta)
    {
        // Static ARP: filled only now, because association (link up) resets the
        // ARP caches of the STAs; populated before association, some STAs were
        // seen to ARP for the AP and lose their SYN.
        NeighborCacheHelper nch;
        nch.PopulateNeighborCache();
        if (!keepBeacons)
        {
            ap->SetAttribute("BeaconGeneration", BooleanValue(false));
        }
        return;
    }
    Simulator::Schedule(MilliSeconds(100), &AfterAssociation, ap, nSta, keepBeacons);
}

} // namespace

int
main(int argc, char* argv[])
{
    const double wall0 = bench::WallNow();

    uint32_t nSta = 15;
    double simTime = 100.0;     // s, measured traffic time
    double warmup = 1.0;        // s, association phase before the first flow
    double gap = 1.0;           // s between flow starts
    uint32_t apQueue = 50;      // packets, AP (and STA) Wi-Fi MAC queue
    double macQueueMaxDelay = 0; // s; 0 = no lifetime (ns-3 default is 0.5 s)
    uint32_t wndPkts = 42;      // sender-side window cap (segments)
    uint32_t mss = 1460;        // bytes: 1500-byte IP packets without TCP options
    uint32_t initCwnd = 2;      // segments (ns-2 windowInit_ default)
    double minRto = 0.2;        // s (ns-2 minrto_ default)
    double clockGranularity = 0.001; // s (ns-3 default; ns-2 tcpTick_ is 0.01)
    uint32_t delAckCount = 1;   // ACK every segment
    bool sack = false;
    bool timestamps = false;
    bool limitedTransmit = true; // ns-2 2.35 singledup_=1, ns-3 default true
    std::string recovery = "classic"; // classic | prr
    std::string dataMode = "ErpOfdmRate24Mbps";
    std::string ctrlMode = "ErpOfdmRate24Mbps"; // RTS rate only; ACK rate follows the basic-rate rule
    uint32_t cwMin = 31;        // Keceli et al. Sect. IV (ns-3 default for 11g would be 15)
    uint32_t cwMax = 1023;
    bool shortSlot = true;      // ERP-only BSS: 9 us slot; false = 20 us long slot
    uint32_t maxSsrc = 7;       // retry limit for frames <= RtsCtsThreshold (all frames here)
    uint32_t maxSlrc = 4;
    std::string p2pRate = "100Mbps";
    double p2pDelayMs = 15.0;
    double radius = 5.0; // m, STAs on a circle around the AP
    bool keepBeacons = false;
    uint32_t seed = 1;
    uint32_t run = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("nSta", "number of uploading stations", nSta);
    cmd.AddValue("simTime", "measured traffic time (s)", simTime);
    cmd.AddValue("warmup", "association time before the first flow (s)", warmup);
    cmd.AddValue("gap", "time between flow starts (s)", gap);
    cmd.AddValue("apQueue", "Wi-Fi MAC queue size in packets (AP and STAs)", apQueue);
    cmd.AddValue("macQueueMaxDelay", "Wi-Fi MAC queue lifetime (s), 0 = none", macQueueMaxDelay);
    cmd.AddValue("wnd", "sender window cap in segments (send buffer)", wndPkts);
    cmd.AddValue("mss", "TCP segment size (bytes)", mss);
    cmd.AddValue("initCwnd", "initial cwnd (segments)", initCwnd);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("clockGranularity", "RTO clock granularity (s)", clockGranularity);
    cmd.AddValue("delAck", "TCP DelAckCount", delAckCount);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("timestamps", "enable TCP timestamps", timestamps);
    cmd.AddValue("limitedTransmit", "enable limited transmit (RFC 3042)", limitedTransmit);
    cmd.AddValue("recovery", "classic | prr", recovery);
    cmd.AddValue("dataMode", "data WifiMode", dataMode);
    cmd.AddValue("ctrlMode", "ConstantRateWifiManager ControlMode (RTS)", ctrlMode);
    cmd.AddValue("cwMin", "DCF CWmin", cwMin);
    cmd.AddValue("cwMax", "DCF CWmax", cwMax);
    cmd.AddValue("shortSlot", "allow ERP short slot (9 us)", shortSlot);
    cmd.AddValue("maxSsrc", "short retry limit", maxSsrc);
    cmd.AddValue("maxSlrc", "long retry limit", maxSlrc);
    cmd.AddValue("p2pRate", "wired link rate", p2pRate);
    cmd.AddValue("p2pDelayMs", "wired link one-way delay (ms)", p2pDelayMs);
    cmd.AddValue("radius", "STA distance to AP (m)", radius);
    cmd.AddValue("keepBeacons", "keep AP beacons after association", keepBeacons);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    g_statsStart = warmup;
    g_rto.assign(nSta, 0);
    g_fastRecov.assign(nSta, 0);

    // ---- TCP ----
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    // Window cap on the sender side: the send buffer holds at most wnd segments,
    // so at most wnd segments are ever unacknowledged. The receiver buffer stays at
    // the ns-3 default (131072 B), i.e. the advertised window never binds (avoids the
    // ns-3.37 TcpRateLinux::SkbSent crash at an exact rwnd limit).
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(wndPkts * mss));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(131072));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(clockGranularity)));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    // ns-2 starts with ssthresh = window_ (42 segments); ns-3's default is "infinite".
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(wndPkts * mss));
    // ns-3 closes a connection after DataRetries consecutive RTOs (default 6) or
    // ConnCount SYN retries (default 6); the paper's (and ns-2's) FTP flows never give
    // up, so starving flows stay alive here too.
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3.0)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1.0)));

    // ---- Wi-Fi queues and station manager ----
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, apQueue)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay",
                       TimeValue(macQueueMaxDelay > 0 ? Seconds(macQueueMaxDelay)
                                                      : Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(65535));
    Config::SetDefault("ns3::WifiRemoteStationManager::FragmentationThreshold",
                       UintegerValue(65535));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSsrc", UintegerValue(maxSsrc));
    Config::SetDefault("ns3::WifiRemoteStationManager::MaxSlrc", UintegerValue(maxSlrc));

    // ---- nodes ----
    NodeContainer server;
    server.Create(1);
    NodeContainer apNode;
    apNode.Create(1);
    NodeContainer stas;
    stas.Create(nSta);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(p2pRate));
    p2p.SetChannelAttribute("Delay", TimeValue(MilliSeconds(p2pDelayMs)));
    NetDeviceContainer wired = p2p.Install(server.Get(0), apNode.Get(0));

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211g);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue(dataMode),
                                 "ControlMode", StringValue(ctrlMode));

    WifiMacHelper mac;
    Ssid ssid("wifitcp-r1");
    mac.SetType("ns3::StaWifiMac",
                "Ssid", SsidValue(ssid),
                "QosSupported", BooleanValue(false),
                "ShortSlotTimeSupported", BooleanValue(shortSlot),
                "MaxMissedBeacons", UintegerValue(std::numeric_limits<uint32_t>::max()));
    NetDeviceContainer staDevs = wifi.Install(phy, mac, stas);
    mac.SetType("ns3::ApWifiMac",
                "Ssid", SsidValue(ssid),
                "QosSupported", BooleanValue(false),
                "ShortSlotTimeSupported", BooleanValue(shortSlot));
    NetDeviceContainer apDev = wifi.Install(phy, mac, apNode);
    wifi.AssignStreams(NetDeviceContainer(apDev, staDevs), 100);

    // DCF contention window (overrides the per-standard value set at install time).
    NetDeviceContainer allWifi(apDev, staDevs);
    for (uint32_t i = 0; i < allWifi.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(allWifi.Get(i));
        d->GetMac()->GetTxop()->SetMinCw(cwMin);
        d->GetMac()->GetTxop()->SetMaxCw(cwMax);
    }

    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0)); // AP
    for (uint32_t i = 0; i < nSta; ++i)
    {
        double a = 2 * M_PI * i / nSta;
        pos->Add(Vector(radius * std::cos(a), radius * std::sin(a), 0));
    }
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(apNode);
    mob.Install(stas);

    // ---- IP ----
    InternetStackHelper internet;
    internet.Install(server);
    internet.Install(apNode);
    internet.Install(stas);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer wiredIf = addr.Assign(wired);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer apIf = addr.Assign(apDev);
    Ipv4InterfaceContainer staIf = addr.Assign(staDevs);
    // Ipv4AddressHelper::Assign installs an FqCoDel root queue disc on every
    // device; remove them so that the only queues are the Wi-Fi MAC queue
    // (50-packet drop-tail, see above) and the p2p device's DropTailQueue.
    TrafficControlHelper tch;
    tch.Uninstall(wired);
    tch.Uninstall(apDev);
    tch.Uninstall(staDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Static ARP (no ARP frames on the air): see AfterAssociation().

    // ---- applications ----
    Address serverAddr = wiredIf.GetAddress(0);
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<double> starts;
    const double stopAt = warmup + simTime;
    for (uint32_t i = 0; i < nSta; ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkH.Install(server.Get(0));
        s.Start(Seconds(0));
        s.Stop(Seconds(stopAt + 1));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));

        BulkSendHelper src("ns3::TcpSocketFactory",
                           InetSocketAddress(wiredIf.GetAddress(0), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer a = src.Install(stas.Get(i));
        double t0 = warmup + i * gap;
        starts.push_back(t0);
        a.Start(Seconds(t0));
        a.Stop(Seconds(stopAt));
        Simulator::Schedule(Seconds(t0) + NanoSeconds(1),
                            &HookSocket,
                            DynamicCast<BulkSendApplication>(a.Get(0)),
                            i);
    }
    (void)serverAddr;
    (void)staIf;
    (void)apIf;

    // ---- traces ----
    for (uint32_t i = 0; i < allWifi.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(allWifi.Get(i));
        bool isAp = (i == 0);
        NS_ABORT_MSG_IF(!d->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                MakeBoundCallback(&PsduTxBegin, isAp)),
                        "trace connect failed");
        NS_ABORT_MSG_IF(!d->GetRemoteStationManager()->TraceConnectWithoutContext(
            "MacTxDataFailed", MakeBoundCallback(&DataFailed, isAp)),
                        "trace connect failed");
        NS_ABORT_MSG_IF(!d->GetRemoteStationManager()->TraceConnectWithoutContext(
            "MacTxFinalDataFailed", MakeCallback(&DataFinalFailed)),
                        "trace connect failed");
        if (!isAp)
        {
            NS_ABORT_MSG_IF(!d->GetMac()->TraceConnectWithoutContext("Assoc", MakeCallback(&Assoc)),
                            "trace connect failed");
        }
    }
    Ptr<WifiNetDevice> apWifi = DynamicCast<WifiNetDevice>(apDev.Get(0));
    Ptr<WifiMacQueue> apQ = apWifi->GetMac()->GetTxop()->GetWifiMacQueue();
    // With flow control and no queue disc, a full MAC queue stops the device queue and
    // the traffic-control layer drops the packet (TcDrop): still tail drop at 50 packets.
    bool ok = apQ->TraceConnectWithoutContext("Drop", MakeCallback(&ApDrop)) &&
              apQ->TraceConnectWithoutContext("Expired", MakeCallback(&ApExpired)) &&
              apNode.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                  "TcDrop", MakeCallback(&ApTcDrop));
    NS_ABORT_MSG_IF(!ok, "could not connect AP queue traces");
    Simulator::Schedule(MilliSeconds(300),
                        &AfterAssociation,
                        DynamicCast<ApWifiMac>(apWifi->GetMac()),
                        nSta,
                        keepBeacons);

    Simulator::Stop(Seconds(stopAt));
    const double wallRun0 = bench::WallNow();
    Simulator::Run();
    const double wallRun = bench::WallNow() - wallRun0;
    const uint64_t events = Simulator::GetEventCount();

    // ---- results ----
    std::vector<uint64_t> bytes;
    std::vector<double> gput;       // over the measured window (simTime)
    std::vector<double> gputActive; // over the flow's active time
    uint64_t totalBytes = 0;
    for (uint32_t i = 0; i < nSta; ++i)
    {
        uint64_t b = sinks[i]->GetTotalRx();
        bytes.push_back(b);
        totalBytes += b;
        double active = stopAt - starts[i];
        gput.push_back(b * 8.0 / simTime / 1e6);
        gputActive.push_back(active > 0 ? b * 8.0 / active / 1e6 : 0.0);
    }
    double mn = gput.empty() ? 0 : *std::min_element(gput.begin(), gput.end());
    double mx = gput.empty() ? 0 : *std::max_element(gput.begin(), gput.end());
    uint32_t starving = 0;
    double mean = 0;
    for (double g : gput)
    {
        mean += g / gput.size();
    }
    for (double g : gput)
    {
        starving += (g < 0.1 * mean);
    }
    Ptr<WifiPhy> staPhy = DynamicCast<WifiNetDevice>(staDevs.Get(0))->GetPhy();
    Ptr<Txop> staTxop = DynamicCast<WifiNetDevice>(staDevs.Get(0))->GetMac()->GetTxop();

    auto join = [](const std::set<std::string>& s) {
        std::string o;
        for (const auto& x : s)
        {
            o += (o.empty() ? "" : ",") + x;
        }
        return o;
    };

    std::ostringstream js;
    js << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"scenario\":\"R1\""
       << ",\"n_flows\":" << nSta << ",\"sim_time_s\":" << bench::Num(simTime, 3)
       << ",\"goodput_basis\":\"bytes*8/sim_time (measured window); *_active: bytes*8/(sim_time - start offset)\""
       << ",\"start_s\":" << bench::Arr(starts, 3) << ",\"bytes\":" << bench::Arr(bytes)
       << ",\"goodput_mbps\":" << bench::Arr(gput, 4)
       << ",\"goodput_active_mbps\":" << bench::Arr(gputActive, 4)
       << ",\"jain_active\":" << bench::Num(bench::Jain(gputActive), 4)
       << ",\"total_mbps\":" << bench::Num(totalBytes * 8.0 / simTime / 1e6, 4)
       << ",\"jain\":" << bench::Num(bench::Jain(gput), 4)
       << ",\"min_mbps\":" << bench::Num(mn, 4) << ",\"max_mbps\":" << bench::Num(mx, 4)
       << ",\"starving_flows_lt10pct_mean\":" << starving
       << ",\"rto_events\":" << bench::Arr(g_rto) << ",\"fast_recoveries\":" << bench::Arr(g_fastRecov)
       << ",\"ap_queue_drops\":" << g_apQueueDrops << ",\"ap_queue_expired\":" << g_apQueueExpired
       << ",\"data_attempts\":" << g_dataAttempts << ",\"data_attempts_ap\":" << g_dataAttemptsAp
       << ",\"data_failed\":" << g_dataFailed << ",\"data_failed_ap\":" << g_dataFailedAp
       << ",\"data_retry_drops\":" << g_dataFinalFailed
       << ",\"coll_prob\":"
       << bench::Num(g_dataAttempts ? double(g_dataFailed) / g_dataAttempts : 0, 5)
       << ",\"coll_prob_def\":\"unacked unicast data attempts / unicast data attempts, all nodes, t>=warmup\""
       << ",\"events\":" << events << ",\"run_wall_s\":" << bench::Num(wallRun, 3)
       << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 3)
       << ",\"check\":{\"assoc\":" << g_assoc
       << ",\"slot_us\":" << staPhy->GetSlot().GetMicroSeconds()
       << ",\"sifs_us\":" << staPhy->GetSifs().GetMicroSeconds()
       << ",\"cw_min\":" << staTxop->GetMinCw() << ",\"cw_max\":" << staTxop->GetMaxCw()
       << ",\"aifsn\":" << +staTxop->GetAifsn()
       << ",\"data_modes\":" << bench::Str(join(g_dataModes))
       << ",\"ack_modes\":" << bench::Str(join(g_ackModes)) << "}"
       << ",\"config\":{\"seed\":" << seed << ",\"run\":" << run << ",\"mss\":" << mss
       << ",\"wnd_pkts\":" << wndPkts << ",\"init_cwnd\":" << initCwnd
       << ",\"min_rto_s\":" << bench::Num(minRto, 3) << ",\"sack\":" << (sack ? "true" : "false")
       << ",\"timestamps\":" << (timestamps ? "true" : "false") << ",\"del_ack_count\":" << delAckCount
       << ",\"recovery\":" << bench::Str(recovery) << ",\"limited_transmit\":"
       << (limitedTransmit ? "true" : "false") << ",\"mac_queue_pkts\":" << apQueue
       << ",\"mac_queue_max_delay_s\":" << bench::Num(macQueueMaxDelay, 3)
       << ",\"keep_beacons\":" << (keepBeacons ? "true" : "false") << "}}";
    std::cout << js.str() << std::endl;

    Simulator::Destroy();
    return 0;
}

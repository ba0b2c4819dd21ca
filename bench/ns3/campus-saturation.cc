// wifitcp campus reference for ns-3.37: many cells on separate channels, each
// saturated (bench/campus's case, side by side with wifitcp).
//
// K cells, each an 802.11a IBSS on its own YansWifiChannel (separate channels:
// no frame of one cell reaches another), each with one sink and n saturated
// stations 1 mm from it sending 1500-byte MSDUs (54 Mbit/s data, ACKs by the
// basic-rate rule, RTS/CTS off, no beacons). Traffic enters the MAC through
// PacketSockets as in r2-saturation.cc (the one-cell program this repeats K
// times), so the only frames on the air are data and ACKs.
//
// Output (one JSON line): total and per-cell throughput (MSDUs delivered to
// the sinks in [warmup, warmup + duration), times 1500 bytes), the events
// ns-3 ran, and the wall and CPU seconds of Simulator::Run and of the whole
// process (CPU from getrusage, user + system).
//
//   bench/ns3/build.sh
//   bench/ns3/build/campus-saturation --cells=64 --n=20 --duration=5

#include "cell-sinks.h"
#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <sys/resource.h>

#include <iostream>
#include <map>

using namespace ns3;

namespace
{

double
CpuNow()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

} // namespace

int
main(int argc, char* argv[])
{
    const double wall0 = bench::WallNow();
    const double cpu0 = CpuNow();

    uint32_t cells = 64;
    uint32_t n = 20;
    double duration = 5.0;
    double warmup = 0.0;
    uint32_t msdu = 1500; // bytes incl. 8-byte LLC/SNAP
    uint32_t queuePkts = 100;
    double load = 4.0;
    uint32_t seed = 1;
    uint32_t run = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("cells", "number of cells (each on its own channel)", cells);
    cmd.AddValue("n", "saturated stations per cell", n);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("msdu", "MSDU size in bytes including LLC/SNAP", msdu);
    cmd.AddValue("queue", "Wi-Fi MAC queue (packets)", queuePkts);
    cmd.AddValue("load", "offered load factor per station (>1 keeps every queue non-empty)", load);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    bench::CellSinks sinks(cells, warmup, warmup + duration);

    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePkts)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(65535));

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue("OfdmRate54Mbps"),
                                 "ControlMode", StringValue("OfdmRate24Mbps"));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false));

    double perStaPps = load * 30e6 / (msdu * 8.0) / n;
    Time interval = Seconds(1.0 / perStaPps);
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetStream(7);
    int64_t stream = 100;

    for (uint32_t c = 0; c < cells; ++c)
    {
        NodeContainer nodes;
        nodes.Create(n + 1); // node 0 of the cell = sink
        YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
        YansWifiPhyHelper phy;
        phy.SetChannel(channel.Create());
        NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
        stream += wifi.AssignStreams(devs, stream);

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
        sinks.Sink(nodes.Get(0), devs.Get(0));
        for (uint32_t i = 0; i < n; ++i)
        {
            sinks.Sender(nodes.Get(i + 1), devs.Get(i + 1), devs.Get(0), c, msdu - 8, interval,
                         MicroSeconds(jitter->GetInteger(0, 1000)));
        }
    }

    Simulator::Stop(Seconds(warmup + duration));
    const double wallRun0 = bench::WallNow();
    const double cpuRun0 = CpuNow();
    Simulator::Run();
    const double wallRun = bench::WallNow() - wallRun0;
    const double cpuRun = CpuNow() - cpuRun0;
    const uint64_t events = Simulator::GetEventCount();

    std::vector<double> perCell;
    uint64_t rx = 0;
    for (uint32_t c = 0; c < cells; ++c)
    {
        rx += sinks.Count(c);
        perCell.push_back(sinks.Count(c) * msdu * 8.0 / duration / 1e6);
    }
    std::ostringstream js;
    js << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"cells\":" << cells << ",\"n\":" << n
       << ",\"duration_s\":" << bench::Num(duration, 3)
       << ",\"throughput_mbps\":" << bench::Num(rx * msdu * 8.0 / duration / 1e6, 4)
       << ",\"per_cell_mbps\":" << bench::Arr(perCell, 4)
       << ",\"cell_min_mbps\":" << bench::Num(*std::min_element(perCell.begin(), perCell.end()), 4)
       << ",\"cell_max_mbps\":" << bench::Num(*std::max_element(perCell.begin(), perCell.end()), 4)
       << ",\"events\":" << events << ",\"run_wall_s\":" << bench::Num(wallRun, 3)
       << ",\"run_cpu_s\":" << bench::Num(cpuRun, 3)
       << ",\"wall_s\":" << bench::Num(bench::WallNow() - wall0, 3)
       << ",\"cpu_s\":" << bench::Num(CpuNow() - cpu0, 3) << "}";
    std::cout << js.str() << std::endl;
    Simulator::Destroy();
    return 0;
}

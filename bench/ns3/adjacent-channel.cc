// wifitcp adjacent-channel reference for ns-3.37: two saturated links on two
// 5 GHz channels sharing one spectrum channel (bench/leakage's pair case, side
// by side with wifitcp's channel.adjacent_channel = "mask").
//
// Two 802.11a IBSS cells on one MultiModelSpectrumChannel (SpectrumWifiPhy:
// a frame's power spectral density follows ns-3's OFDM transmit mask, and a
// receiver takes what falls in its own 20 MHz band; a frame it cannot decode
// counts as interference and, from CcaEdThreshold = -62 dBm, keeps CCA busy).
// Cell k: a sink at (k d, 0) and one station at (k d, r) sending 1500-byte
// MSDUs at 54 Mbit/s (ACKs at 24 Mbit/s, RTS/CTS off, no beacons); cell 0 on
// channel 36, cell 1 on --ch2 (36: one channel, 40: adjacent, 44: 40 MHz
// away). Log-distance loss (exponent 3, 46.6777 dB at 1 m), 16.0206 dBm,
// noise figure 7 dB, YansErrorRateModel, ns-3's default preamble detection
// (--preamble=0 disables it). --cca_sensitivity sets WifiPhy::CcaSensitivity
// (default -82 dBm), the level from which ns-3 holds CCA busy for a Wi-Fi
// PPDU, also one on another channel whose leakage reaches the receiver.
//
// Output (one JSON line): the two cells' throughput (MSDUs delivered to the
// sinks in [warmup, warmup + duration), times 1500 bytes).
//
//   bench/ns3/build.sh
//   bench/ns3/build/adjacent-channel --d=3 --r=20 --ch2=40

#include "cell-sinks.h"
#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/spectrum-module.h"
#include "ns3/wifi-module.h"

#include <iostream>
#include <map>

using namespace ns3;


int
main(int argc, char* argv[])
{
    double d = 3.0;
    double r = 20.0;
    uint32_t ch2 = 40;
    double duration = 2.5;
    double warmup = 0.5;
    uint32_t msdu = 1500; // bytes incl. 8-byte LLC/SNAP
    bool preamble = true;
    double ccaSensitivity = -82.0;
    uint32_t seed = 1;
    uint32_t run = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("d", "distance between the two cells (m)", d);
    cmd.AddValue("r", "station to sink distance (m)", r);
    cmd.AddValue("ch2", "channel of cell 1 (cell 0: 36)", ch2);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("preamble", "ns-3's preamble detection model (1) or none (0)", preamble);
    cmd.AddValue("cca_sensitivity", "WifiPhy::CcaSensitivity (dBm; ns-3's default -82)", ccaSensitivity);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    bench::CellSinks sinks(2, warmup, warmup + duration);

    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 100)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(65535));

    Ptr<MultiModelSpectrumChannel> spectrum = CreateObject<MultiModelSpectrumChannel>();
    Ptr<LogDistancePropagationLossModel> loss = CreateObject<LogDistancePropagationLossModel>();
    loss->SetAttribute("Exponent", DoubleValue(3.0));
    loss->SetAttribute("ReferenceDistance", DoubleValue(1.0));
    loss->SetAttribute("ReferenceLoss", DoubleValue(46.6777));
    spectrum->AddPropagationLossModel(loss);
    spectrum->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue("OfdmRate54Mbps"),
                                 "ControlMode", StringValue("OfdmRate24Mbps"));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false));

    int64_t stream = 100;
    const uint32_t chans[2] = {36, ch2};
    for (uint32_t c = 0; c < 2; ++c)
    {
        NodeContainer nodes;
        nodes.Create(2); // node 0 of the cell = sink
        SpectrumWifiPhyHelper phy;
        phy.SetChannel(spectrum);
        std::ostringstream cs;
        cs << "{" << chans[c] << ", 20, BAND_5GHZ, 0}";
        phy.Set("ChannelSettings", StringValue(cs.str()));
        phy.Set("TxPowerStart", DoubleValue(16.0206));
        phy.Set("TxPowerEnd", DoubleValue(16.0206));
        phy.Set("RxNoiseFigure", DoubleValue(7.0));
        phy.Set("CcaSensitivity", DoubleValue(ccaSensitivity));
        phy.SetErrorRateModel("ns3::YansErrorRateModel");
        if (!preamble)
        {
            phy.DisablePreambleDetectionModel();
        }
        NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
        stream += wifi.AssignStreams(devs, stream);

        MobilityHelper mob;
        Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
        pos->Add(Vector(c * d, 0, 0));
        pos->Add(Vector(c * d, r, 0));
        mob.SetPositionAllocator(pos);
        mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        mob.Install(nodes);

        PacketSocketHelper ps;
        ps.Install(nodes);
        sinks.Sink(nodes.Get(0), devs.Get(0));
        sinks.Sender(nodes.Get(1), devs.Get(1), devs.Get(0), c, msdu - 8, MicroSeconds(100),
                     MicroSeconds(100 + 37 * c));
    }

    Simulator::Stop(Seconds(warmup + duration));
    Simulator::Run();
    const double m0 = sinks.Count(0) * msdu * 8.0 / duration / 1e6;
    const double m1 = sinks.Count(1) * msdu * 8.0 / duration / 1e6;
    std::cout << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"d\":" << bench::Num(d, 3) << ",\"r\":" << bench::Num(r, 3)
              << ",\"ch2\":" << ch2 << ",\"throughput_mbps\":" << bench::Num(m0 + m1, 4)
              << ",\"per_cell_mbps\":" << bench::Arr(std::vector<double>{m0, m1}, 4) << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}

// wifitcp reference: MPDU loss and goodput of one 802.11n link against the SNR, for
// the HT error-model cross-check (docs/validation.md, section 13).
//
// One saturated sender 'd' metres from one sink in an 802.11n IBSS at 5 GHz: HT MCS
// --mcs, 20 MHz, long guard interval, one spatial stream, QoS best effort, RTS/CTS
// off, A-MPDUs of at most --ampdu MPDUs (BlockAck agreement), 1500-octet MSDUs
// (LLC/SNAP included) through PacketSockets as in ht-saturation.cc. The channel is
// wifitcp's default SNR channel: log-distance loss, exponent 3, 46.6832 dB at 1 m
// (Friis at 5.15 GHz with c = 299792458 m/s), 16.0206 dBm transmit power, noise
// figure 7 dB, so the SNR over 20 MHz is 63.30 - 30 log10(d) dB; --snr sets d from
// it. Error-rate model --model: table (TableBasedErrorRateModel), nist or yans. The
// preamble-detection model is off (--preamble 1 keeps ns-3's default threshold
// model): wifitcp has none, and it would drop every PPDU below 4 dB SNR.
//
// Output (one JSON line): goodput of MSDUs received at the sink in [warmup, warmup +
// duration); MPDU transmissions of QoS Data and how many carried the Retry bit
// (with no MPDU discarded, retransmissions / transmissions is the per-attempt MPDU
// loss rate); PPDUs, BlockAckReqs; the receiver's mean SNR of received MPDUs.
#include "common.h"

#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
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
uint64_t g_retries = 0;
uint64_t g_bars = 0;
double g_snrSum = 0;
uint64_t g_snrN = 0;

bool
InWindow()
{
    double t = Simulator::Now().GetSeconds();
    return t >= g_t0 && t < g_t1;
}

void
PsduTxBegin(WifiConstPsduMap psdus, WifiTxVector, double)
{
    if (!InWindow())
    {
        return;
    }
    for (const auto& kv : psdus)
    {
        Ptr<const WifiPsdu> p = kv.second;
        if (p->GetHeader(0).IsQosData())
        {
            ++g_ppdus;
            for (std::size_t i = 0; i < p->GetNMpdus(); ++i)
            {
                ++g_mpdus;
                g_retries += p->GetHeader(i).IsRetry() ? 1 : 0;
            }
        }
        else if (p->GetHeader(0).IsBlockAckReq())
        {
            ++g_bars;
        }
    }
}

void
SnifferRx(Ptr<const Packet>, uint16_t, WifiTxVector, MpduInfo, SignalNoiseDbm sn, uint16_t)
{
    if (InWindow())
    {
        g_snrSum += sn.signal - sn.noise;
        ++g_snrN;
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
    double duration = 3.0;
    double warmup = 0.5;
    uint32_t msdu = 1500;
    uint32_t mcs = 7;
    uint32_t ampdu = 64;
    double snr = 25.0;
    std::string model = "table";
    bool preamble = false;
    uint32_t seed = 1;
    uint32_t run = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "measured time (s)", duration);
    cmd.AddValue("warmup", "unmeasured time before the window (s)", warmup);
    cmd.AddValue("msdu", "MSDU size in bytes including LLC/SNAP", msdu);
    cmd.AddValue("mcs", "HT MCS (one stream: 0-7)", mcs);
    cmd.AddValue("ampdu", "most MPDUs per A-MPDU (1 = no aggregation)", ampdu);
    cmd.AddValue("snr", "SNR over 20 MHz at the receiver, dB (sets the distance)", snr);
    cmd.AddValue("model", "error-rate model: table, nist or yans", model);
    cmd.AddValue("preamble", "keep ns-3's preamble-detection model", preamble);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run", run);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    g_t0 = warmup;
    g_t1 = warmup + duration;

    const double txPower = 16.0206;
    const double refLoss = 46.6832;
    const double noiseDbm = 10 * std::log10(1.380649e-23 * 290 * 20e6 * 1000) + 7.0;
    const double distance = std::pow(10.0, (txPower - refLoss - noiseDbm - snr) / 30.0);

    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1000)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(999999));

    NodeContainer nodes;
    nodes.Create(2);
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel", "Exponent", DoubleValue(3.0),
                               "ReferenceDistance", DoubleValue(1.0), "ReferenceLoss", DoubleValue(refLoss));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("ChannelSettings", StringValue("{36, 20, BAND_5GHZ, 0}"));
    phy.Set("TxPowerStart", DoubleValue(txPower));
    phy.Set("TxPowerEnd", DoubleValue(txPower));
    phy.Set("RxNoiseFigure", DoubleValue(7.0));
    if (model == "table")
    {
        phy.SetErrorRateModel("ns3::TableBasedErrorRateModel");
    }
    else if (model == "nist")
    {
        phy.SetErrorRateModel("ns3::NistErrorRateModel");
    }
    else
    {
        phy.SetErrorRateModel("ns3::YansErrorRateModel");
    }
    if (!preamble)
    {
        phy.DisablePreambleDetectionModel();
    }
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211n);
    std::ostringstream mode;
    mode << "HtMcs" << mcs;
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue(mode.str()),
                                 "ControlMode", StringValue(mode.str()));
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
    pos->Add(Vector(distance, 0, 0));
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(nodes);
    PacketSocketHelper ps;
    ps.Install(nodes);

    PacketSocketAddress sinkAddr;
    sinkAddr.SetSingleDevice(devs.Get(0)->GetIfIndex());
    sinkAddr.SetPhysicalAddress(devs.Get(0)->GetAddress());
    sinkAddr.SetProtocol(1);
    Ptr<PacketSocketServer> server = CreateObject<PacketSocketServer>();
    server->SetLocal(sinkAddr);
    nodes.Get(0)->AddApplication(server);
    server->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    PacketSocketAddress a;
    a.SetSingleDevice(devs.Get(1)->GetIfIndex());
    a.SetPhysicalAddress(devs.Get(0)->GetAddress());
    a.SetProtocol(1);
    Ptr<PacketSocketClient> c = CreateObject<PacketSocketClient>();
    c->SetRemote(a);
    c->SetAttribute("PacketSize", UintegerValue(msdu - 8));
    c->SetAttribute("MaxPackets", UintegerValue(0));
    // Offered load 4x the MCS's PHY rate: the queue never empties.
    double rate = HtPhy::GetHtMcs(mcs).GetDataRate(20, 800, 1);
    c->SetAttribute("Interval", TimeValue(Seconds(msdu * 8.0 / (4 * rate))));
    nodes.Get(1)->AddApplication(c);
    c->SetStartTime(MicroSeconds(100));
    DynamicCast<WifiNetDevice>(devs.Get(1))
        ->GetPhy()
        ->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&PsduTxBegin));
    DynamicCast<WifiNetDevice>(devs.Get(0))
        ->GetPhy()
        ->TraceConnectWithoutContext("MonitorSnifferRx", MakeCallback(&SnifferRx));
    Simulator::Stop(Seconds(g_t1));
    Simulator::Run();
    std::cout << "{\"sim\":\"ns-3\",\"version\":\"3.37\",\"scenario\":\"ht-per\",\"model\":" << bench::Str(model)
              << ",\"mcs\":" << mcs << ",\"ampdu\":" << ampdu << ",\"snr_db\":" << bench::Num(snr, 3)
              << ",\"distance_m\":" << bench::Num(distance, 4)
              << ",\"goodput_mbps\":" << bench::Num(g_rx * msdu * 8.0 / duration / 1e6, 4)
              << ",\"ppdus\":" << g_ppdus << ",\"mpdus\":" << g_mpdus << ",\"retries\":" << g_retries
              << ",\"mpdu_loss\":" << bench::Num(g_mpdus ? double(g_retries) / g_mpdus : 0, 5)
              << ",\"block_ack_reqs\":" << g_bars
              << ",\"rx_snr_db\":" << bench::Num(g_snrN ? g_snrSum / g_snrN : 0, 3) << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}

// Samples of ns-3 3.37's small-scale fading on independent links, for
// bench/compare-fading: the power gain |h|^2 (linear, mean 1) of
// JakesPropagationLossModel (JakesProcess: DopplerFrequencyHz,
// NumberOfOscillators) every --dt seconds over --duration seconds of
// simulated time, or of NakagamiPropagationLossModel (one m for every
// distance: m0 = m1 = m2) per call, on --links links.
//
// Output: one line per sample, "link power_gain".
//
// usage: fading-trace --model=jakes|nakagami [--fd=HZ] [--oscillators=N]
//                     [--m=M] [--links=N] [--duration=S] [--dt=S] [--seed=N]
#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/propagation-module.h"

#include <cmath>
#include <cstdio>

using namespace ns3;

namespace
{
std::vector<Ptr<MobilityModel>> g_a, g_b;
Ptr<PropagationLossModel> g_model;

void
Sample(uint32_t links)
{
    for (uint32_t i = 0; i < links; i++)
    {
        // 0 dBm in: the received power in dBm is the gain in dB.
        double db = g_model->CalcRxPower(0.0, g_a[i], g_b[i]);
        std::printf("%u %.9g\n", i, std::pow(10.0, db / 10.0));
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string model = "jakes";
    double fd = 50.0;
    uint32_t oscillators = 20;
    double m = 1.0;
    uint32_t links = 50;
    double duration = 2.0;
    double dt = 0.0005;
    uint32_t seed = 1;
    CommandLine cmd;
    cmd.AddValue("model", "jakes or nakagami", model);
    cmd.AddValue("fd", "maximum Doppler shift, Hz (jakes)", fd);
    cmd.AddValue("oscillators", "JakesProcess::NumberOfOscillators", oscillators);
    cmd.AddValue("m", "Nakagami m (every distance)", m);
    cmd.AddValue("links", "independent links", links);
    cmd.AddValue("duration", "simulated seconds sampled (jakes)", duration);
    cmd.AddValue("dt", "sample spacing, s (jakes); nakagami: duration/dt draws per link", dt);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    if (model == "jakes")
    {
        Config::SetDefault("ns3::JakesProcess::DopplerFrequencyHz", DoubleValue(fd));
        Config::SetDefault("ns3::JakesProcess::NumberOfOscillators", UintegerValue(oscillators));
        g_model = CreateObject<JakesPropagationLossModel>();
    }
    else if (model == "nakagami")
    {
        Ptr<NakagamiPropagationLossModel> nak = CreateObject<NakagamiPropagationLossModel>();
        nak->SetAttribute("m0", DoubleValue(m));
        nak->SetAttribute("m1", DoubleValue(m));
        nak->SetAttribute("m2", DoubleValue(m));
        g_model = nak;
    }
    else
    {
        std::fprintf(stderr, "fading-trace: --model must be jakes or nakagami\n");
        return 2;
    }
    for (uint32_t i = 0; i < links; i++)
    {
        Ptr<ConstantPositionMobilityModel> a = CreateObject<ConstantPositionMobilityModel>();
        Ptr<ConstantPositionMobilityModel> b = CreateObject<ConstantPositionMobilityModel>();
        a->SetPosition(Vector(1000.0 * i, 0, 0));
        b->SetPosition(Vector(1000.0 * i + 10.0, 0, 0));
        g_a.push_back(a);
        g_b.push_back(b);
    }
    uint64_t n = static_cast<uint64_t>(std::llround(duration / dt));
    for (uint64_t k = 0; k < n; k++)
    {
        Simulator::Schedule(Seconds(k * dt), &Sample, links);
    }
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}

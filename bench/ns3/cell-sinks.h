// MSDUs delivered to PacketSocket sinks within a measurement window,
// counted by the cell of their sender (campus-saturation, adjacent-channel).
// Our own code; only the ns-3 public API is used.
#ifndef WIFITCP_BENCH_NS3_CELL_SINKS_H
#define WIFITCP_BENCH_NS3_CELL_SINKS_H

#include "ns3/abort.h"
#include "ns3/mac48-address.h"
#include "ns3/network-module.h"
#include "ns3/simulator.h"

#include <map>
#include <vector>

namespace bench
{

/// Counts per cell of the MSDUs the sinks receive in [t0, t1).
class CellSinks
{
  public:
    CellSinks(uint32_t cells, double t0, double t1)
        : m_t0(t0),
          m_t1(t1),
          m_rx(cells, 0)
    {
    }

    /// A PacketSocket sink on device `dev` of `node`, counted here.
    /// (`ns3::PacketSocketHelper::Install` on the node first.)
    void Sink(ns3::Ptr<ns3::Node> node, ns3::Ptr<ns3::NetDevice> dev)
    {
        ns3::PacketSocketAddress at;
        at.SetSingleDevice(dev->GetIfIndex());
        at.SetPhysicalAddress(dev->GetAddress());
        at.SetProtocol(1);
        ns3::Ptr<ns3::PacketSocketServer> server = ns3::CreateObject<ns3::PacketSocketServer>();
        server->SetLocal(at);
        node->AddApplication(server);
        NS_ABORT_MSG_IF(!server->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&CellSinks::Rx, this)),
                        "trace connect failed");
    }

    /// A PacketSocket client on device `dev` of `node` sending `bytes`-byte
    /// packets every `interval` from `start` to the sink on `sink` (its
    /// MSDUs count for cell `cell`): saturated when the interval is
    /// shorter than a frame exchange.
    void Sender(ns3::Ptr<ns3::Node> node,
                ns3::Ptr<ns3::NetDevice> dev,
                ns3::Ptr<ns3::NetDevice> sink,
                uint32_t cell,
                uint32_t bytes,
                ns3::Time interval,
                ns3::Time start)
    {
        m_cellOf[ns3::Mac48Address::ConvertFrom(dev->GetAddress())] = cell;
        ns3::PacketSocketAddress to;
        to.SetSingleDevice(dev->GetIfIndex());
        to.SetPhysicalAddress(sink->GetAddress());
        to.SetProtocol(1);
        ns3::Ptr<ns3::PacketSocketClient> cl = ns3::CreateObject<ns3::PacketSocketClient>();
        cl->SetRemote(to);
        cl->SetAttribute("PacketSize", ns3::UintegerValue(bytes));
        cl->SetAttribute("MaxPackets", ns3::UintegerValue(0));
        cl->SetAttribute("Interval", ns3::TimeValue(interval));
        node->AddApplication(cl);
        cl->SetStartTime(start);
    }

    /// MSDUs counted for cell `c`.
    uint64_t Count(uint32_t c) const
    {
        return m_rx[c];
    }

  private:
    void Rx(ns3::Ptr<const ns3::Packet>, const ns3::Address& from)
    {
        double t = ns3::Simulator::Now().GetSeconds();
        if (t < m_t0 || t >= m_t1)
        {
            return;
        }
        ns3::PacketSocketAddress psa = ns3::PacketSocketAddress::ConvertFrom(from);
        auto it = m_cellOf.find(ns3::Mac48Address::ConvertFrom(psa.GetPhysicalAddress()));
        if (it != m_cellOf.end())
        {
            ++m_rx[it->second];
        }
    }

    double m_t0;
    double m_t1;
    std::vector<uint64_t> m_rx;
    std::map<ns3::Mac48Address, uint32_t> m_cellOf;
};

} // namespace bench

#endif

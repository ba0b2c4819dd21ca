// The attributes of ns-3 types and their initial values as the installed
// library has them (what a program that sets nothing gets), one per line.
//
//   bench/ns3/build/attributes ns3::TcpBbr ns3::TcpCubic ns3::RedQueueDisc
//
// The types are registered by their modules' libraries; the ones named in
// `Link` below are referenced so the linker keeps those libraries.
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    // Keep the libraries of the usual types linked (--as-needed).
    TypeId keep[] = {TcpBbr::GetTypeId(), RedQueueDisc::GetTypeId(), WifiMac::GetTypeId()};
    (void)keep;
    if (argc < 2)
    {
        std::cerr << "usage: attributes TYPE..." << std::endl;
        return 2;
    }
    for (int i = 1; i < argc; i++)
    {
        TypeId t;
        if (!TypeId::LookupByNameFailSafe(argv[i], &t))
        {
            std::cerr << "attributes: " << argv[i] << ": no such type" << std::endl;
            return 2;
        }
        for (uint32_t j = 0; j < t.GetAttributeN(); j++)
        {
            TypeId::AttributeInformation a = t.GetAttribute(j);
            std::cout << argv[i] << " " << a.name << " = "
                      << a.initialValue->SerializeToString(a.checker) << std::endl;
        }
    }
    return 0;
}

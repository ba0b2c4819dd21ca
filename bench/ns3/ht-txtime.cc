// Prints ns-3 3.37's TXTIME of HT-mixed PPDUs, one line each:
// mcs width_mhz gi_ns band_ghz psdu_bytes txtime_ns
// Build and run (see /usr/share/doc or bench/README.md for ns-3 set-up):
//   g++ -std=c++17 -O1 bench/ns3/ht-txtime.cc -o /tmp/ht-txtime $(pkg-config --cflags --libs ns3-core ns3-network ns3-wifi)
//   /tmp/ht-txtime > crates/wifi/tests/data/ns3_ht_txtime.txt
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <iostream>
using namespace ns3;
int main() {
  uint32_t sizes[] = {14, 32, 40, 100, 1500, 1538, 3839, 7935, 20000, 65535};
  for (int band = 0; band < 2; band++)
  for (uint8_t mcs = 0; mcs < 32; mcs++)
  for (uint16_t width : {20, 40})
  for (uint16_t gi : {800, 400})
  for (uint32_t s : sizes) {
    WifiTxVector v;
    v.SetMode(HtPhy::GetHtMcs(mcs));
    v.SetPreambleType(WIFI_PREAMBLE_HT_MF);
    v.SetGuardInterval(gi);
    v.SetNss(mcs / 8 + 1);
    v.SetNTx(mcs / 8 + 1);
    v.SetChannelWidth(width);
    WifiPhyBand b = band ? WIFI_PHY_BAND_2_4GHZ : WIFI_PHY_BAND_5GHZ;
    Time t = WifiPhy::CalculateTxDuration(s, v, b);
    std::cout << int(mcs) << " " << width << " " << gi << " " << (band ? "2.4" : "5") << " " << s << " " << t.GetNanoSeconds() << "\n";
  }
}

// Prints ns-3 3.37's TXTIME of VHT SU, HE SU and HE ER SU PPDUs, one line
// each:
//   format mcs nss width_mhz gi_ns band_ghz psdu_bytes txtime_ns
// (format: vht, he or he-er; combinations ns-3 refuses are left out).
// Build and run:
//   g++ -std=c++17 -O1 bench/ns3/vht-he-txtime.cc -o /tmp/vht-he-txtime $(pkg-config --cflags --libs ns3-core ns3-network ns3-wifi)
//   /tmp/vht-he-txtime > crates/wifi/tests/data/ns3_vht_he_txtime.txt
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <iostream>
using namespace ns3;

static void line(const char* fmt, WifiTxVector& v, int mcs, double band, WifiPhyBand b, uint32_t s) {
  Time t = WifiPhy::CalculateTxDuration(s, v, b);
  std::cout << fmt << " " << mcs << " " << int(v.GetNss()) << " " << v.GetChannelWidth() << " "
            << v.GetGuardInterval() << " " << band << " " << s << " " << t.GetNanoSeconds() << "\n";
}

int main() {
  uint32_t sizes[] = {14, 1504, 7935, 65535, 1048575};
  for (uint8_t mcs = 0; mcs < 10; mcs++)
  for (uint8_t nss = 1; nss <= 4; nss++)
  for (uint16_t width : {20, 40, 80, 160})
  for (uint16_t gi : {800, 400})
  for (uint32_t s : sizes) {
    WifiTxVector v;
    v.SetMode(VhtPhy::GetVhtMcs(mcs));
    v.SetPreambleType(WIFI_PREAMBLE_VHT_SU);
    v.SetGuardInterval(gi);
    v.SetNss(nss);
    v.SetNTx(nss);
    v.SetChannelWidth(width);
    if (!v.IsValid()) continue;
    line("vht", v, mcs, 5, WIFI_PHY_BAND_5GHZ, s);
  }
  for (int band = 0; band < 2; band++)
  for (uint8_t mcs = 0; mcs < 12; mcs++)
  for (uint8_t nss = 1; nss <= 4; nss++)
  for (uint16_t width : {20, 40, 80, 160})
  if (band == 0 || width == 80)
  for (uint16_t gi : {800, 1600, 3200})
  for (uint32_t s : sizes) {
    WifiTxVector v;
    v.SetMode(HePhy::GetHeMcs(mcs));
    v.SetPreambleType(WIFI_PREAMBLE_HE_SU);
    v.SetGuardInterval(gi);
    v.SetNss(nss);
    v.SetNTx(nss);
    v.SetChannelWidth(width);
    line("he", v, mcs, band ? 6 : 5, band ? WIFI_PHY_BAND_6GHZ : WIFI_PHY_BAND_5GHZ, s);
  }
  for (uint8_t mcs = 0; mcs < 3; mcs++)
  for (uint16_t gi : {800, 1600, 3200})
  for (uint32_t s : sizes) {
    WifiTxVector v;
    v.SetMode(HePhy::GetHeMcs(mcs));
    v.SetPreambleType(WIFI_PREAMBLE_HE_ER_SU);
    v.SetGuardInterval(gi);
    v.SetNss(1);
    v.SetNTx(1);
    v.SetChannelWidth(20);
    line("he-er", v, mcs, 5, WIFI_PHY_BAND_5GHZ, s);
  }
}

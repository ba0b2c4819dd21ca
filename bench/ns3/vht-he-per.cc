// Prints ns-3 3.37's TableBasedErrorRateModel success of the data field of
// a VHT or HE PSDU against the SNR, for the VHT/HE error-model cross-check
// (docs/validation.md, VHT and HE section): on a 0.01 dB grid, the SNR at
// which the success first reaches 0.5 and 0.9 (linear interpolation), one
// line each:
//   format mcs width_mhz success snr_db
// (format vht or he; one stream; the chunk is the data field of a
// 1500-octet PSDU: 16 service + 8 x 1500 + 6 tail bits; the SNR is over the
// channel width, as ns-3's InterferenceHelper gives it).
// Build and run:
//   g++ -std=c++17 -O1 bench/ns3/vht-he-per.cc -o /tmp/vht-he-per $(pkg-config --cflags --libs ns3-core ns3-network ns3-wifi)
//   /tmp/vht-he-per > crates/wifi/tests/data/ns3_vht_he_per.txt
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <cmath>
#include <iostream>
using namespace ns3;

int main() {
  Ptr<TableBasedErrorRateModel> m = CreateObject<TableBasedErrorRateModel>();
  const uint64_t bits = 16 + 8 * 1500 + 6;
  struct Case { const char* fmt; int mcs; uint16_t width; };
  Case cases[] = {{"vht", 0, 80}, {"vht", 4, 80}, {"vht", 7, 80}, {"vht", 9, 80},
                  {"he", 0, 80}, {"he", 4, 80}, {"he", 7, 80}, {"he", 9, 80}, {"he", 11, 80}};
  for (const Case& c : cases) {
    WifiTxVector v;
    WifiMode mode = std::string(c.fmt) == "vht" ? VhtPhy::GetVhtMcs(c.mcs) : HePhy::GetHeMcs(c.mcs);
    v.SetMode(mode);
    v.SetPreambleType(std::string(c.fmt) == "vht" ? WIFI_PREAMBLE_VHT_SU : WIFI_PREAMBLE_HE_SU);
    v.SetNss(1);
    v.SetChannelWidth(c.width);
    v.SetGuardInterval(800);
    for (double target : {0.5, 0.9}) {
      double prevDb = -10, prev = 0;
      for (int i = -1000; i <= 4500; i++) {
        double db = i / 100.0;
        double p = m->GetChunkSuccessRate(mode, v, std::pow(10.0, db / 10.0), bits);
        if (p >= target) {
          double x = i == -1000 ? db : prevDb + (target - prev) / (p - prev) * (db - prevDb);
          std::cout << c.fmt << " " << c.mcs << " " << c.width << " " << target << " " << x << "\n";
          break;
        }
        prevDb = db;
        prev = p;
      }
    }
  }
}

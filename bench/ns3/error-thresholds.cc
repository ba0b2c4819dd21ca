// Prints, per ns-3 3.37 error-rate model (NIST, YANS), mode (HT MCS 0-7 at
// 20 MHz, one stream; OFDM 6-54 Mbit/s) and probability p, the SNR in dB at
// which the data field of a 1500-octet PSDU (8 x 1500 + 22 bits) succeeds
// with probability p. Build and run:
//   g++ -std=c++17 -O1 bench/ns3/error-thresholds.cc -o /tmp/err $(pkg-config --cflags --libs ns3-core ns3-network ns3-wifi)
//   /tmp/err > crates/wifi/tests/data/ns3_error_thresholds.txt
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <iostream>
using namespace ns3;
double thresh(Ptr<ErrorRateModel> m, WifiMode mode, WifiTxVector v, uint64_t bits, double p) {
  double lo = -10, hi = 60;
  for (int i = 0; i < 60; i++) {
    double mid = (lo + hi) / 2;
    double s = m->GetChunkSuccessRate(mode, v, std::pow(10.0, mid / 10), bits);
    if (s < p) lo = mid; else hi = mid;
  }
  return lo;
}
int main() {
  Ptr<ErrorRateModel> models[] = {CreateObject<NistErrorRateModel>(), CreateObject<YansErrorRateModel>()};
  const char* names[] = {"nist", "yans"};
  for (int k = 0; k < 2; k++) {
    for (uint8_t mcs = 0; mcs < 8; mcs++) {
      WifiTxVector v; WifiMode mode = HtPhy::GetHtMcs(mcs);
      v.SetMode(mode); v.SetPreambleType(WIFI_PREAMBLE_HT_MF); v.SetGuardInterval(800); v.SetNss(1); v.SetNTx(1); v.SetChannelWidth(20);
      for (double p : {0.5, 0.9})
        std::cout << names[k] << " ht" << int(mcs) << " " << p << " " << thresh(models[k], mode, v, 8 * 1500 + 22, p) << "\n";
    }
    const char* ofdm[] = {"OfdmRate6Mbps","OfdmRate9Mbps","OfdmRate12Mbps","OfdmRate18Mbps","OfdmRate24Mbps","OfdmRate36Mbps","OfdmRate48Mbps","OfdmRate54Mbps"};
    for (auto n : ofdm) {
      WifiMode mode(n); WifiTxVector v; v.SetMode(mode); v.SetPreambleType(WIFI_PREAMBLE_LONG); v.SetChannelWidth(20);
      for (double p : {0.5, 0.9})
        std::cout << names[k] << " " << n << " " << p << " " << thresh(models[k], mode, v, 8 * 1500 + 22, p) << "\n";
    }
  }
}

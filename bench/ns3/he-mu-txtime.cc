// Prints ns-3 3.37's airtime of HE MU and HE TB PPDUs whose RUs are the
// equal-sized ones its round-robin scheduler gives N stations
// (HeRu::GetEqualSizedRusForStations, no central 26-tone RUs), one line each:
//   mu  width_mhz n_users ru_tones mcs nss gi_ns psdu_bytes sigb_ns txtime_ns
//   mix width_mhz n_users ru_tones base_mcs nss gi_ns psdu_bytes sigb_ns txtime_ns
//   tb  width_mhz n_users ru_tones mcs nss gi_ns psdu_bytes l_sig_length txtime_ns
// "mu": every user the same MCS and PSDU size; "mix": user i (0-based) has
// MCS (base + 5 i) mod 12 and a PSDU of (i + 1) x psdu_bytes octets; "tb":
// the HE TB PPDU the AP solicits with the Trigger's UL Length computed from
// the longest user's airtime (HePhy::ConvertHeTbPpduDurationToLSigLength),
// every user the same MCS and size. 5 GHz band.
// Build and run:
//   bench/ns3/build.sh && bench/ns3/build/he-mu-txtime > crates/wifi/tests/data/ns3_he_mu_txtime.txt
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <iostream>
using namespace ns3;

static int tones(HeRu::RuType t) {
  switch (t) {
  case HeRu::RU_26_TONE: return 26;
  case HeRu::RU_52_TONE: return 52;
  case HeRu::RU_106_TONE: return 106;
  case HeRu::RU_242_TONE: return 242;
  case HeRu::RU_484_TONE: return 484;
  case HeRu::RU_996_TONE: return 996;
  default: return 1992;
  }
}

// The tx vector of `pre` with `n` users on RUs of `t` (in the primary 80 MHz
// first), user i with MCS mcs(i).
template <class F>
static WifiTxVector vec(WifiPreamble pre, uint16_t w, HeRu::RuType t, std::size_t n, F mcs, uint8_t nss, uint16_t gi) {
  WifiTxVector v;
  v.SetPreambleType(pre);
  v.SetChannelWidth(w);
  v.SetGuardInterval(gi);
  std::size_t half = (w == 160 && t != HeRu::RU_2x996_TONE) ? n / 2 : n;
  for (std::size_t i = 0; i < n; i++) {
    bool p80 = i < half;
    std::size_t idx = p80 ? i + 1 : i - half + 1;
    v.SetHeMuUserInfo(i + 1, {HeRu::RuSpec(t, idx, p80), HePhy::GetHeMcs(mcs(i)), nss});
  }
  return v;
}

int main() {
  uint32_t sizes[] = {14, 1504, 7935, 65535};
  auto he = WifiPhy::GetStaticPhyEntity(WIFI_MOD_CLASS_HE);
  for (uint16_t w : {20, 40, 80, 160})
  for (std::size_t want : {1, 2, 3, 4, 5, 8, 9, 16, 18, 36}) {
    std::size_t n = want, c26 = 0;
    HeRu::RuType t = HeRu::GetEqualSizedRusForStations(w, n, c26);
    if (n != want) continue;  // only the counts that fill the band
    for (uint8_t mcs = 0; mcs < 12; mcs++)
    for (uint8_t nss = 1; nss <= 2; nss++)
    for (uint16_t gi : {800, 1600, 3200})
    for (uint32_t s : sizes) {
      WifiTxVector v = vec(WIFI_PREAMBLE_HE_MU, w, t, n, [&](std::size_t) { return mcs; }, nss, gi);
      Time d = Seconds(0);
      for (std::size_t i = 0; i < n; i++) d = Max(d, WifiPhy::CalculateTxDuration(s, v, WIFI_PHY_BAND_5GHZ, i + 1));
      std::cout << "mu " << w << " " << n << " " << tones(t) << " " << int(mcs) << " " << int(nss) << " " << gi << " " << s
                << " " << he->GetDuration(WIFI_PPDU_FIELD_SIG_B, v).GetNanoSeconds() << " " << d.GetNanoSeconds() << "\n";
      WifiTxVector m = vec(WIFI_PREAMBLE_HE_MU, w, t, n, [&](std::size_t i) { return (mcs + 5 * i) % 12; }, nss, gi);
      d = Seconds(0);
      for (std::size_t i = 0; i < n; i++) d = Max(d, WifiPhy::CalculateTxDuration(s * (i + 1), m, WIFI_PHY_BAND_5GHZ, i + 1));
      std::cout << "mix " << w << " " << n << " " << tones(t) << " " << int(mcs) << " " << int(nss) << " " << gi << " " << s
                << " " << he->GetDuration(WIFI_PPDU_FIELD_SIG_B, m).GetNanoSeconds() << " " << d.GetNanoSeconds() << "\n";
      WifiTxVector tb = vec(WIFI_PREAMBLE_HE_TB, w, t, n, [&](std::size_t) { return mcs; }, nss, gi);
      d = Seconds(0);
      for (std::size_t i = 0; i < n; i++) d = Max(d, WifiPhy::CalculateTxDuration(s, tb, WIFI_PHY_BAND_5GHZ, i + 1));
      auto [len, dur] = HePhy::ConvertHeTbPpduDurationToLSigLength(d, tb, WIFI_PHY_BAND_5GHZ);
      std::cout << "tb " << w << " " << n << " " << tones(t) << " " << int(mcs) << " " << int(nss) << " " << gi << " " << s
                << " " << len << " " << dur.GetNanoSeconds() << "\n";
    }
  }
}

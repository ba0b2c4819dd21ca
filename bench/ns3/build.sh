#!/usr/bin/env bash
# Build the wifitcp ns-3 reference programs against Debian's ns-3.37 (libns3-dev).
# Needs: libns3-dev libgsl-dev (pkg-config files name GSL), g++, pkg-config.
# Output: bench/ns3/build/{r1-uplink,r2-saturation,cc-download,ht-saturation,ht-per,fading-trace,vht-he-txtime,vht-he-per,he-mu-txtime,he-ofdma,campus-saturation,adjacent-channel,attributes}
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/build"
mkdir -p "$out"
mods="ns3-core ns3-network ns3-internet ns3-wifi ns3-mobility ns3-propagation ns3-spectrum ns3-point-to-point ns3-applications ns3-traffic-control"
if ! pkg-config --exists $mods; then
    echo "build.sh: ns-3 pkg-config modules not found; apt-get install -y --no-install-recommends ns3 libns3-dev libgsl-dev" >&2
    exit 2
fi
flags="$(pkg-config --cflags --libs $mods)"
for prog in r1-uplink r2-saturation cc-download ht-saturation ht-per fading-trace vht-he-txtime vht-he-per he-mu-txtime he-ofdma campus-saturation adjacent-channel attributes; do
    src="$here/$prog.cc"
    bin="$out/$prog"
    if [[ ! -x "$bin" || "$src" -nt "$bin" || "$here/common.h" -nt "$bin" || "$here/cell-sinks.h" -nt "$bin" ]]; then
        echo "build.sh: g++ -std=c++17 -O2 $prog.cc" >&2
        # shellcheck disable=SC2086
        g++ -std=c++17 -O2 "$src" -o "$bin" $flags
    fi
done
echo "$out"

# wifitcp reference scenario R2 for ns-2 2.35: DCF saturation throughput
# (Bianchi setting). n saturated stations send 1500-byte MSDUs to one sink in an
# 802.11a IBSS at 54 Mbit/s (ACK at 24 Mbit/s, RTS off), no routing protocol
# (DumbAgent: packets go straight to the MAC), CBR/UDP well above saturation.
#
# Frame size: ns-2 adds a 34-byte MAC header+FCS and no LLC/SNAP, so a 1494-byte
# UDP packet gives a 1528-byte MPDU, the same as a 1500-byte MSDU (LLC/SNAP
# included) with a 24-byte header and FCS on a real 802.11a link.
# Throughput = packets received by the sink * 1500 * 8 / duration (MSDU throughput).
#
# Usage: ns r2.tcl [key=value ...]; prints one JSON line.

source [file join [file dirname [info script]] common.tcl]

array set opt {
    n 50  duration 20.0  msdu 1500  ifq 100  load 4.0
    rate 54Mb  basic 24Mb  cwmin 15  cwmax 1023
    radius 1.0  seed 1  stats 0
}
parse_args opt $argv
set wall0 [clock clicks -milliseconds]

global defaultRNG
$defaultRNG seed $opt(seed)

set_ofdm_a_timing $opt(rate) $opt(basic) $opt(cwmin) $opt(cwmax)
LL set delay_ 0
LL set mindelay_ 0

set pktSize [expr {$opt(msdu) - 6}] ;# + 34 (ns-2 MAC) = msdu + 28 (LLC in msdu, 24 hdr + 4 FCS)
Agent/UDP set packetSize_ $pktSize

set ns [new Simulator]
if {$opt(stats)} {
    set tracePath [exec mktemp /tmp/wifitcp-ns2-r2.XXXXXX]
} else {
    set tracePath /dev/null
}
set tf [open $tracePath w]
$ns trace-all $tf

set topo [new Topography]
$topo load_flatgrid 100 100
create-god [expr {$opt(n) + 1}]

set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting DumbAgent \
    -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen $opt(ifq) \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -movementTrace OFF \
    -macTrace [expr {$opt(stats) ? "ON" : "OFF"}]

set sinkNode [$ns node]
$sinkNode random-motion 0
$sinkNode set X_ 50.0
$sinkNode set Y_ 50.0
$sinkNode set Z_ 0.0

set pi 3.14159265358979
set perStaRate [expr {$opt(load) * 30e6 / $opt(n)}]
set rng [new RNG]
$rng seed [expr {$opt(seed) + 7}]
for {set i 0} {$i < $opt(n)} {incr i} {
    set sta($i) [$ns node]
    $sta($i) random-motion 0
    set a [expr {2 * $pi * $i / $opt(n)}]
    $sta($i) set X_ [expr {50.0 + $opt(radius) * cos($a)}]
    $sta($i) set Y_ [expr {50.0 + $opt(radius) * sin($a)}]
    $sta($i) set Z_ 0.0
    set udp($i) [new Agent/UDP]
    $ns attach-agent $sta($i) $udp($i)
    set mon($i) [new Agent/LossMonitor]
    $ns attach-agent $sinkNode $mon($i)
    $ns connect $udp($i) $mon($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set packetSize_ $pktSize
    $cbr($i) set rate_ $perStaRate
    $cbr($i) set random_ 1
    $cbr($i) attach-agent $udp($i)
    $ns at [expr {[$rng uniform 0 0.001]}] "$cbr($i) start"
}

proc finish {} {
    global ns opt mon tf tracePath wall0
    set rx 0; set per {}
    for {set i 0} {$i < $opt(n)} {incr i} {
        set k [$mon($i) set npkts_]
        set rx [expr {$rx + $k}]
        lappend per [expr {$k * $opt(msdu) * 8.0 / $opt(duration) / 1e6}]
    }
    $ns flush-trace
    close $tf
    set coll null; set dtx null; set atx null
    if {$opt(stats)} {
        lassign [mac_counts $tracePath {cbr} _0_] dtx atx
        if {$dtx > 0} { set coll [format %.5f [expr {1.0 - double($atx) / $dtx}]] }
        file delete $tracePath
    }
    set wall [expr {([clock clicks -milliseconds] - $wall0) / 1000.0}]
    puts [format {{"sim":"ns-2","version":"2.35","scenario":"R2","n":%d,"duration_s":%.3f,"msdu_bytes":%d,"throughput_mbps":%.4f,"msdus":%d,"per_station_mbps":%s,"jain":%.4f,"min_mbps":%.4f,"max_mbps":%.4f,"data_attempts":%s,"mac_acks":%s,"coll_prob":%s,"coll_prob_def":"1 - MAC ACKs sent by the sink / data frames sent by stations, whole run; stats=1 only","events":null,"wall_s":%.3f,"config":{"seed":%d,"ifq":%d,"rate":"%s","basic":"%s","cw_min":%d,"cw_max":%d}}} \
        $opt(n) $opt(duration) $opt(msdu) [expr {$rx * $opt(msdu) * 8.0 / $opt(duration) / 1e6}] $rx [json_list $per] \
        [jain $per] [min_of $per] [max_of $per] $dtx $atx $coll $wall \
        $opt(seed) $opt(ifq) $opt(rate) $opt(basic) $opt(cwmin) $opt(cwmax)]
    exit 0
}

$ns at $opt(duration) "finish"
$ns run

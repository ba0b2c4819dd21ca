# wifitcp reference scenario R1 for ns-2 2.35 (Debian package ns2):
# uplink TCP unfairness in an 802.11g BSS (Keceli, Inan & Ayanoglu; their Fig. 1
# was made with ns-2.28 and this kind of script).
#
#   n STAs --802.11 DCF (ERP-OFDM timing, 24 Mbit/s, RTS off)--> BS --100 Mbit/s, 15 ms--> W
#
# Wired-cum-wireless topology with hierarchical addresses; the BS is a mobile node
# with wired routing on; wireless routing is DSDV (ns-2 needs an ad-hoc routing agent
# for base-station forwarding). The MAC runs in its default IBSS mode: no beacons,
# no association (and no ns-2 "handoff after 3 retries" of the infrastructure mode).
#
# Timeline (same as bench/ns3/r1-uplink.cc): flow i (0-based) starts at warmup + i*gap,
# all stop at warmup + simtime. Per-flow goodput = in-order bytes acknowledged
# ((TCP ack_ + 1) * packetSize_) * 8 / simtime (the measured window, as wifitcp);
# total = their sum; goodput_active_mbps / jain_active use each flow's active time.
#
# Usage: ns r1.tcl [key=value ...]   (keys: see array opt below)
# Prints one JSON line on stdout.

source [file join [file dirname [info script]] common.tcl]

array set opt {
    n 15  simtime 100.0  warmup 2.0  gap 1.0
    ifq 50  wnd 42  pkt 1460  initwnd 2  minrto 0.2  tick 0.01
    bw 100Mb  delay 15ms
    rate 24Mb  basic 24Mb  slot 0.000009  sifs 0.000010  cwmin 31  cwmax 1023
    radius 5.0  seed 1  stats 0  rtproto DSDV
}
parse_args opt $argv
set wall0 [clock clicks -milliseconds]

global defaultRNG
$defaultRNG seed $opt(seed)

# ---- MAC / PHY (see common.tcl for the timing calibration) ----
set_erp_ofdm_timing $opt(rate) $opt(basic) $opt(slot) $opt(sifs) $opt(cwmin) $opt(cwmax)
LL set delay_ 0         ;# ns-2 default adds 25 us per packet in the link layer
LL set mindelay_ 0
Queue/DropTail/PriQueue set Prefer_Routing_Protocols 1

# ---- TCP: classic NewReno, no SACK, no timestamps, ACK every segment ----
Agent/TCP set window_ $opt(wnd)
Agent/TCP set packetSize_ $opt(pkt)
Agent/TCP set windowInit_ $opt(initwnd)
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set timestamps_ false
Agent/TCP set maxburst_ 0
Agent/TCP set singledup_ 1   ;# limited transmit (ns-2 2.35 default; ns-3 default too)
Agent/TCPSink set packetSize_ 40

set ns [new Simulator]
Simulator instproc wifitcp-untrace-links {} {
    # Keep the wired link out of the trace file (only the wireless nodes need one).
    $self instvar traceAllFile_
    if {[info exists traceAllFile_]} { unset traceAllFile_ }
}

$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
AddrParams set cluster_num_ {1 1}
AddrParams set nodes_num_ [list 1 [expr {$opt(n) + 1}]]

if {$opt(stats)} {
    set tracePath [exec mktemp /tmp/wifitcp-ns2-r1.XXXXXX]
} else {
    set tracePath /dev/null
}
set tf [open $tracePath w]
$ns trace-all $tf

set topo [new Topography]
$topo load_flatgrid 100 100
create-god [expr {$opt(n) + 1}]

set W [$ns node 0.0.0]

set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting $opt(rtproto) \
    -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen $opt(ifq) \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -wiredRouting ON \
    -agentTrace OFF -routerTrace OFF -movementTrace OFF \
    -macTrace [expr {$opt(stats) ? "ON" : "OFF"}]

set BS [$ns node 1.0.0]
$BS random-motion 0
$BS set X_ 50.0
$BS set Y_ 50.0
$BS set Z_ 0.0

$ns node-config -wiredRouting OFF
set pi 3.14159265358979
for {set i 0} {$i < $opt(n)} {incr i} {
    set sta($i) [$ns node 1.0.[expr {$i + 1}]]
    $sta($i) random-motion 0
    $sta($i) base-station [AddrParams addr2id [$BS node-addr]]
    set a [expr {2 * $pi * $i / $opt(n)}]
    $sta($i) set X_ [expr {50.0 + $opt(radius) * cos($a)}]
    $sta($i) set Y_ [expr {50.0 + $opt(radius) * sin($a)}]
    $sta($i) set Z_ 0.0
}

$ns wifitcp-untrace-links
$ns duplex-link $W $BS $opt(bw) $opt(delay) DropTail

set stop [expr {$opt(warmup) + $opt(simtime)}]
for {set i 0} {$i < $opt(n)} {incr i} {
    set tcp($i) [new Agent/TCP/Newreno]
    # DSDV adds a 20-byte IP header to packets it originates, so the TCP/IP header
    # counted by the agent is 20 bytes: 1460 + 20 + 20 = 1500-byte IP packets on air.
    $tcp($i) set tcpip_base_hdr_size_ 20
    $tcp($i) set fid_ $i
    $ns attach-agent $sta($i) $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $W $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr {$opt(warmup) + $i * $opt(gap)}]
    $ns at $start($i) "$ftp($i) start"
}

proc finish {} {
    global ns opt tcp start stop tf tracePath wall0
    set gput {}; set gact {}; set bytes {}; set starts {}; set total 0.0; set rto {}
    for {set i 0} {$i < $opt(n)} {incr i} {
        set b [expr {([$tcp($i) set ack_] + 1) * $opt(pkt)}]
        if {$b < 0} { set b 0 }
        lappend bytes $b
        lappend starts $start($i)
        lappend gput [expr {$b * 8.0 / $opt(simtime) / 1e6}]
        lappend gact [expr {$b * 8.0 / ($stop - $start($i)) / 1e6}]
        lappend rto [$tcp($i) set nrexmit_]
        set total [expr {$total + $b}]
    }
    set mean 0.0
    foreach g $gput { set mean [expr {$mean + $g / $opt(n)}] }
    set starving 0
    foreach g $gput { if {$g < 0.1 * $mean} { incr starving } }
    $ns flush-trace
    close $tf
    set coll null; set dtx null; set atx null
    if {$opt(stats)} {
        lassign [mac_counts $tracePath {tcp ack}] dtx atx
        if {$dtx > 0} { set coll [format %.5f [expr {1.0 - double($atx) / $dtx}]] }
        file delete $tracePath
    }
    set wall [expr {([clock clicks -milliseconds] - $wall0) / 1000.0}]
    puts [format {{"sim":"ns-2","version":"2.35","scenario":"R1","n_flows":%d,"sim_time_s":%.3f,"goodput_basis":"acked bytes*8/sim_time (measured window); *_active: bytes*8/(sim_time - start offset)","start_s":%s,"bytes":%s,"goodput_mbps":%s,"goodput_active_mbps":%s,"jain_active":%.4f,"total_mbps":%.4f,"jain":%.4f,"min_mbps":%.4f,"max_mbps":%.4f,"starving_flows_lt10pct_mean":%d,"rto_events":%s,"data_attempts":%s,"mac_acks":%s,"coll_prob":%s,"coll_prob_def":"1 - MAC ACKs sent / unicast data frames sent (tcp+ack), all nodes, whole run; stats=1 only","events":null,"wall_s":%.3f,"config":{"seed":%d,"mss":%d,"wnd_pkts":%d,"init_cwnd":%d,"min_rto_s":%s,"tcp_tick_s":%s,"ifq":%d,"rate":"%s","basic":"%s","slot_s":%s,"sifs_s":%s,"cw_min":%d,"cw_max":%d,"rtproto":"%s"}}} \
        $opt(n) $opt(simtime) [json_list $starts %.3f] [json_list $bytes %d] [json_list $gput] [json_list $gact] [jain $gact] \
        [expr {$total * 8.0 / $opt(simtime) / 1e6}] [jain $gput] [min_of $gput] [max_of $gput] \
        $starving [json_list $rto %d] $dtx $atx $coll $wall \
        $opt(seed) $opt(pkt) $opt(wnd) $opt(initwnd) $opt(minrto) $opt(tick) $opt(ifq) \
        $opt(rate) $opt(basic) $opt(slot) $opt(sifs) $opt(cwmin) $opt(cwmax) $opt(rtproto)]
    exit 0
}

$ns at $stop "finish"
$ns run

# Congestion-controller cross-check for ns-2 2.35 (Debian package ns2): n TCP
# downloads W -> BS -> STAs through the BS's interface queue (wifitcp's
# scenarios/download.toml; the ns-3 counterpart is bench/ns3/cc-download.cc).
#
#   W --100 Mbit/s, 15 ms--> BS --802.11 DCF (ERP-OFDM timing, 24 Mbit/s, RTS off)--> n STAs
#
# Wired-cum-wireless topology as in r1.tcl (hierarchical addresses, DSDV, IBSS mode:
# no beacons, no association). The BS's IFQ (DropTail/PriQueue, ifq packets) is the
# AP buffer; every wireless node gets the same IFQ length (the STAs only send ACKs).
#
# TCP: agent=Newreno (Agent/TCP/Newreno: RFC 6582's Impatient variant with partial
# window deflation, newreno_changes1_ 1 and partial_window_deflation_ 1, ns-2.35's
# defaults, stated here) or agent=Vegas (Agent/TCP/Vegas: Brakmo & Peterson's
# window rule and loss response, v_alpha_/v_beta_/v_gamma_ = alpha/beta/gamma).
# No SACK, no timestamps, an ACK per segment (Agent/TCPSink), initial window 2,
# receive window wnd segments, minimum RTO minrto, limited transmit (singledup_ 1).
#
# Channel errors: per_down > 0 attaches a uniform per-packet ErrorModel to every
# STA's receive path, so frames from the BS to a STA (data frames and the BS's MAC
# ACKs) fail with probability per_down from the start of the measured window on;
# frames the STAs send are not hit (wifitcp: [channel] model = "fixed", frames =
# "all", per_down = p, per_up = 0). retry = MAC transmission attempts per frame.
#
# Goodput: in-order segments acknowledged ((ack_ + 1) * pkt bytes) in the measured
# window [warmup, warmup + simtime], as wifitcp and bench/ns3/cc-download.cc count.
# Flow 0's cwnd (segments) is sampled every 0.1 s.
#
# Usage: ns cc-download.tcl [key=value ...]   (keys: see array opt below)
# Prints one JSON line on stdout.

source [file join [file dirname [info script]] common.tcl]

array set opt {
    n 1  simtime 60.0  warmup 2.0
    ifq 100  wnd 1000  pkt 1460  initwnd 2  minrto 1.0  tick 0.001
    agent Newreno  alpha 1  beta 3  gamma 1
    per_down 0.0  retry 7
    bw 100Mb  delay 15ms
    rate 24Mb  basic 24Mb  slot 0.000009  sifs 0.000010  cwmin 15  cwmax 1023
    radius 5.0  seed 1  rtproto DSDV  trace ""  sendtrace ""
}
parse_args opt $argv
if {$opt(agent) ne "Newreno" && $opt(agent) ne "Vegas"} {
    puts stderr "error: cc-download.tcl: agent: must be Newreno or Vegas"
    exit 2
}
set wall0 [clock clicks -milliseconds]

global defaultRNG
$defaultRNG seed $opt(seed)

# ---- MAC / PHY (see common.tcl for the timing calibration) ----
set_erp_ofdm_timing $opt(rate) $opt(basic) $opt(slot) $opt(sifs) $opt(cwmin) $opt(cwmax)
Mac/802_11 set ShortRetryLimit_ $opt(retry)
LL set delay_ 0
LL set mindelay_ 0
Queue/DropTail/PriQueue set Prefer_Routing_Protocols 1

# ---- TCP ----
Agent/TCP set window_ $opt(wnd)
Agent/TCP set packetSize_ $opt(pkt)
Agent/TCP set windowInit_ $opt(initwnd)
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set timestamps_ false
Agent/TCP set maxburst_ 0
Agent/TCP set singledup_ 1
Agent/TCP/Newreno set newreno_changes1_ 1
Agent/TCP/Newreno set partial_window_deflation_ 1
Agent/TCP/Vegas set v_alpha_ $opt(alpha)
Agent/TCP/Vegas set v_beta_ $opt(beta)
Agent/TCP/Vegas set v_gamma_ $opt(gamma)
Agent/TCPSink set packetSize_ 40

set ns [new Simulator]
Simulator instproc wifitcp-untrace-links {} {
    $self instvar traceAllFile_
    if {[info exists traceAllFile_]} { unset traceAllFile_ }
}

$ns node-config -addressType hierarchical
AddrParams set domain_num_ 2
AddrParams set cluster_num_ {1 1}
AddrParams set nodes_num_ [list 1 [expr {$opt(n) + 1}]]

# ns-2 needs a trace file for wireless nodes; IFQ drops are counted from it.
set tracePath [exec mktemp /tmp/wifitcp-ns2-cc.XXXXXX]
set tf [open $tracePath w]
$ns trace-all $tf

set topo [new Topography]
$topo load_flatgrid 100 100
create-god [expr {$opt(n) + 1}]

set W [$ns node 0.0.0]

# The error models start at rate 0 and get per_down at the start of the measured
# window: DSDV's adverts and ARP (broadcast, never retried) must get through first,
# or a station has no route to the BS and drops its ACKs.
set errModels {}
proc sta_err {} {
    global errModels
    set em [new ErrorModel]
    lappend errModels $em
    $em unit pkt
    $em set rate_ 0.0
    $em ranvar [new RandomVariable/Uniform]
    # No drop target: a hit frame is only flagged (hdr_cmn error) and still reaches
    # the MAC, which keeps the medium busy for its duration and discards it at the
    # end with EIFS. With a drop target the MAC would never see the frame and could
    # transmit over it.
    return $em
}

set chan [new Channel/WirelessChannel]
$ns node-config -adhocRouting $opt(rtproto) \
    -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen $opt(ifq) \
    -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \
    -wiredRouting ON \
    -agentTrace OFF -routerTrace OFF -movementTrace OFF -macTrace OFF

set BS [$ns node 1.0.0]
$BS random-motion 0
$BS set X_ 50.0
$BS set Y_ 50.0
$BS set Z_ 0.0

$ns node-config -wiredRouting OFF
if {$opt(per_down) > 0} {
    $ns node-config -IncomingErrProc sta_err
}
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

# sendtrace=FILE: every data segment the server hands to its link ("time fid seqno"),
# from the wired link's trace (kept only with this option).
if {$opt(sendtrace) eq ""} { $ns wifitcp-untrace-links }
$ns duplex-link $W $BS $opt(bw) $opt(delay) DropTail
$ns queue-limit $W $BS 1000

set stop [expr {$opt(warmup) + $opt(simtime)}]
for {set i 0} {$i < $opt(n)} {incr i} {
    set tcp($i) [new Agent/TCP/$opt(agent)]
    # The wired node adds no DSDV header; 1460 + 40 = 1500-byte IP packets.
    $tcp($i) set fid_ $i
    $ns attach-agent $W $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $sta($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at $opt(warmup) "$ftp($i) start"
}

# trace=FILE: ns-2's variable trace of flow 0 (cwnd_, ssthresh_, ack_, t_backoff_,
# nrexmit_, dupacks_), one line per change: time, addresses, variable, value.
if {$opt(trace) ne ""} {
    set vtf [open $opt(trace) w]
    $tcp(0) attach $vtf
    foreach v {cwnd_ ssthresh_ ack_ t_backoff_ nrexmit_ dupacks_} { $tcp(0) trace $v }
}
# Every flow's nrexmit_ and ack_ changes (flow 0's in the trace= file when given): each
# increment of nrexmit_ is a coarse timeout (Agent/TCP/Newreno and ns-2.35's
# Agent/TCP/Vegas count only those there), and the time from the flow's last cumulative
# ACK advance to it is time spent waiting for the coarse timer ("stalled").
set ctrPath [exec mktemp /tmp/wifitcp-ns2-ctr.XXXXXX]
set ctf [open $ctrPath w]
for {set i 0} {$i < $opt(n)} {incr i} {
    if {$i == 0 && $opt(trace) ne ""} { continue }
    $tcp($i) attach $ctf
    foreach v {nrexmit_ ack_} { $tcp($i) trace $v }
}
# Every flow's coarse-timer backoff (backoff_, not a traced variable) sampled every
# 1 ms; each change is written to the same file as a "backoff_" line, so the backoff
# that armed each coarse timeout can be read beside it.
set lastBackoff {}
for {set i 0} {$i < $opt(n)} {incr i} { lappend lastBackoff 0 }
proc sample_backoff {} {
    global ns tcp opt lastBackoff ctf vtf
    for {set i 0} {$i < $opt(n)} {incr i} {
        set b [$tcp($i) set backoff_]
        if {$b != [lindex $lastBackoff $i]} {
            lset lastBackoff $i $b
            set fh [expr {$i == 0 && $opt(trace) ne "" ? $vtf : $ctf}]
            puts $fh [format "%.5f 0 0 %s 0 backoff_ %d" [$ns now] [$tcp($i) set dst_addr_] $b]
        }
    }
    $ns at [expr {[$ns now] + 0.001}] "sample_backoff"
}
$ns at 0.0 "sample_backoff"
# {coarse timeouts, seconds stalled, backoffs at the timeouts} of the flow whose trace
# lines name destination dst: the union of the intervals [last ack_ advance, timeout],
# within the measured window [from, to], and [last ack_ advance, to] if the flow's
# cumulative ACK last advanced more than minrto before the end (it is then waiting for
# its timer); with the backoff_ in force just before each timeout.
proc stalls {files dst from to minrto} {
    set ivs {}; set bos {}
    set lastT -1.0
    foreach f $files {
        set lastAck -2; set lastRx -1; set bo 1
        set fh [open $f r]
        while {[gets $fh line] >= 0} {
            set w [regexp -all -inline {\S+} $line]
            if {[llength $w] < 7 || [lindex $w 3] ne $dst} { continue }
            set t [lindex $w 0]; set var [lindex $w 5]; set val [lindex $w 6]
            if {$var eq "backoff_" && $val > 0} { set bo $val }
            if {$var eq "ack_" && $val > $lastAck} { set lastAck $val; set lastT $t }
            if {$var eq "nrexmit_"} {
                if {$lastRx >= 0 && $val > $lastRx && $lastT >= 0} {
                    lappend ivs [list [expr {max($lastT, $from)}] $t]
                    lappend bos $bo
                }
                set lastRx $val
            }
        }
        close $fh
    }
    set n [llength $ivs]
    if {$lastT >= 0 && $to - $lastT > $minrto} { lappend ivs [list [expr {max($lastT, $from)}] $to] }
    set total 0.0; set cur {}
    foreach iv [lsort -real -index 0 $ivs] {
        if {$cur ne {} && [lindex $iv 0] <= [lindex $cur 1]} {
            set cur [list [lindex $cur 0] [expr {max([lindex $cur 1], [lindex $iv 1])}]]
        } else {
            if {$cur ne {}} { set total [expr {$total + [lindex $cur 1] - [lindex $cur 0]}] }
            set cur $iv
        }
    }
    if {$cur ne {}} { set total [expr {$total + [lindex $cur 1] - [lindex $cur 0]}] }
    return [list $n $total $bos]
}

set cwnd0 {}
proc sample_cwnd {} {
    global ns tcp cwnd0
    lappend cwnd0 [$tcp(0) set cwnd_]
    $ns at [expr {[$ns now] + 0.1}] "sample_cwnd"
}
$ns at $opt(warmup) "sample_cwnd"
# Vegas: flow 0's latest per-segment RTT sample (v_rtt_) every 1 ms from 5 s into
# the measured window, for its minimum and mean (the spread the MAC adds to RTT).
set vrtt_n 0; set vrtt_sum 0.0; set vrtt_min 1e9
proc sample_vrtt {} {
    global ns tcp vrtt_n vrtt_sum vrtt_min
    set r [$tcp(0) set v_rtt_]
    if {$r > 0} {
        incr vrtt_n
        set vrtt_sum [expr {$vrtt_sum + $r}]
        if {$r < $vrtt_min} { set vrtt_min $r }
    }
    $ns at [expr {[$ns now] + 0.001}] "sample_vrtt"
}
if {$opt(agent) eq "Vegas"} { $ns at [expr {$opt(warmup) + 5.0}] "sample_vrtt" }
set ack0 {}
proc mark_start {} {
    global tcp opt ack0
    for {set i 0} {$i < $opt(n)} {incr i} { lappend ack0 [$tcp($i) set ack_] }
}
$ns at $opt(warmup) "mark_start"
proc errors_on {} {
    global errModels opt
    foreach em $errModels { $em set rate_ $opt(per_down) }
}
$ns at $opt(warmup) "errors_on"

proc finish {} {
    global ns opt tcp tf tracePath wall0 cwnd0 ack0 BS W vrtt_n vrtt_sum vrtt_min ctf ctrPath vtf
    set gput {}; set rto {}; set rexmit {}; set total 0.0; set coarse {}; set duprx {}; set bos {}
    flush $ctf; close $ctf
    set files [list $ctrPath]
    if {$opt(trace) ne ""} { flush $vtf; lappend files $opt(trace) }
    for {set i 0} {$i < $opt(n)} {incr i} {
        set a0 [lindex $ack0 $i]
        if {$a0 < 0} { set a0 -1 }
        set b [expr {([$tcp($i) set ack_] - $a0) * $opt(pkt)}]
        lappend gput [expr {$b * 8.0 / $opt(simtime) / 1e6}]
        lappend rto [$tcp($i) set nrexmit_]
        lappend rexmit [$tcp($i) set nrexmitpack_]
        set sp [stalls $files [$tcp($i) set dst_addr_] $opt(warmup) [expr {$opt(warmup) + $opt(simtime)}] $opt(minrto)]
        lappend coarse [lindex $sp 0]; lappend duprx [lindex $sp 1]; lappend bos {*}[lindex $sp 2]
        set total [expr {$total + $b * 8.0 / $opt(simtime) / 1e6}]
    }
    $ns flush-trace
    close $tf
    if {$opt(sendtrace) ne ""} {
        exec awk "\$1==\"+\" && \$3==\"[$W id]\" && \$5==\"tcp\" {print \$2, \$8, \$11}" $tracePath > $opt(sendtrace)
    }
    # IFQ drops at the BS (its node id in the wireless trace).
    set bs "_[$BS id]_"
    set drops [exec awk "\$1==\"D\" && \$3==\"$bs\" && \$4==\"IFQ\" {d++} END {printf \"%d\", d}" $tracePath]
    # IFQ drops at the stations (their ACKs, for downloads).
    set stadrops [exec awk "\$1==\"D\" && \$3!=\"$bs\" && \$4==\"IFQ\" {d++} END {printf \"%d\", d}" $tracePath]
    file delete $tracePath
    file delete $ctrPath
    set wall [expr {([clock clicks -milliseconds] - $wall0) / 1000.0}]
    set vr "null"
    if {$vrtt_n > 0} {
        set vr [format {{"samples":%d,"min_ms":%.3f,"mean_ms":%.3f}} $vrtt_n [expr {$vrtt_min * 1e3}] \
            [expr {$vrtt_sum / $vrtt_n * 1e3}]]
    }
    puts [format {{"sim":"ns-2","version":"2.35","vegas_rtt0":%s,"agent":"%s","n":%d,"ap_queue":%d,"sim_time_s":%.3f,"per_down":%s,"goodput_mbps":%s,"aggregate_mbps":%.4f,"rto_events":%s,"coarse_timeouts":%s,"stalled_s":%s,"timeout_backoffs":%s,"retransmitted_segments":%s,"ap_queue_drops":%d,"sta_queue_drops":%d,"cwnd_every_s":0.1,"cwnd0_segments":%s,"wall_s":%.3f}} \
        $vr $opt(agent) $opt(n) $opt(ifq) $opt(simtime) $opt(per_down) [json_list $gput] $total \
        [json_list $rto %d] [json_list $coarse %d] [json_list $duprx %.3f] [json_list $bos %d] [json_list $rexmit %d] $drops $stadrops [json_list $cwnd0 %.1f] $wall]
    exit 0
}

$ns at $stop "finish"
$ns run

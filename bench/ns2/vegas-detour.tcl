# ns-2 2.35's TCP Vegas when its path's base RTT jumps, as paper 002's home
# agent detour makes it jump at n3's hand-off (scenarios/janevski-handoff.toml,
# docs/validation.md 3.5): wired only, the WLAN replaced by a bottleneck link
# with the IFQ's drop-tail queue.
#
#   A3 --100 Mbit/s, 30 ms-- A0 --100 Mbit/s, 10 ms-- BS --bneck, 0.1 ms, ifq-- n3
#
# Before `jump` the path is Table 1's A3 -> A0 -> BS -> n3 (80 ms of wired
# round trip). At `jump` s the A0 -> BS direction gets `extra` more delay: the
# home agent's tunnel A0 -> BS0 -> A0 -> BS1 (two 10 ms links) for the data,
# while the ACKs still go BS -> A0 -> A3 directly (Mobile IPv4 without a
# reverse tunnel), so the base RTT goes from 80 to 80 + extra ms. The change of
# delay_ applies to packets sent on the link from then on. With outage = 0 no
# packet is lost: only the delay changes; outage = T also loses every packet
# the BS sends to n3 for T s from the jump (the hand-off's scan).
#
# TCP as scenarios/janevski-*.toml: 512-byte segments, an ACK per segment
# (Agent/TCPSink), initial window 2, minrto 0.2 s, window 1000, no timestamps;
# agent=Vegas (v_alpha_/v_beta_/v_gamma_ = alpha/beta/gamma, ns-2's defaults
# 1/3/1) or Newreno, Reno, Tahoe (Agent/TCP), Sack1.
#
# Goodput from the cumulative ACK ((ack_ + 1) * pkt bytes) over [start, jump],
# [jump + settle, stop] and the last 20 s; cwnd_, the smoothed RTT and Vegas's
# latest RTT sample v_rtt_ are read at the jump and at the end (v_baseRTT_, the
# base RTT Vegas compares with, is not bound to Tcl in ns-2.35; tcp-vegas.cc
# lowers it to any smaller sample and otherwise replaces it only with the RTT
# of a round in which at most one packet was in transit).
#
# Usage: ns vegas-detour.tcl [key=value ...]   (keys: see array opt below)
# Prints one JSON line on stdout.

source [file join [file dirname [info script]] common.tcl]

array set opt {
    agent Vegas  alpha 1  beta 3  gamma 1
    bneck 6Mb  ifq 50  pkt 512  wnd 1000  initwnd 2  minrto 0.2  tick 0.01
    start 35.0  jump 55.5  extra 20ms  settle 2.0  stop 110.0  outage 0.0
}
parse_args opt $argv

Agent/TCP set window_ $opt(wnd)
Agent/TCP set packetSize_ $opt(pkt)
Agent/TCP set windowInit_ $opt(initwnd)
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set timestamps_ false
Agent/TCP/Vegas set v_alpha_ $opt(alpha)
Agent/TCP/Vegas set v_beta_ $opt(beta)
Agent/TCP/Vegas set v_gamma_ $opt(gamma)
Agent/TCPSink set packetSize_ 40

set ns [new Simulator]
set A3 [$ns node]
set A0 [$ns node]
set BS [$ns node]
set n3 [$ns node]
$ns duplex-link $A3 $A0 100Mb 30ms DropTail
$ns duplex-link $A0 $BS 100Mb 10ms DropTail
$ns duplex-link $BS $n3 $opt(bneck) 0.1ms DropTail
$ns queue-limit $A3 $A0 391
$ns queue-limit $A0 $BS 391
$ns queue-limit $BS $n3 $opt(ifq)

# outage > 0: every packet BS sends to n3 in [jump, jump + outage) is lost
# (the hand-off's scan: the old base station discards what it sends to the
# absent station), then the path comes back with the detour.
set em [new ErrorModel]
$em unit pkt
$em set rate_ 0.0
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns lossmodel $em $BS $n3

if {$opt(agent) eq "Tahoe"} {
    set tcp [new Agent/TCP]
} else {
    set tcp [new Agent/TCP/$opt(agent)]
}
$ns attach-agent $A3 $tcp
if {$opt(agent) eq "Sack1"} {
    set sink [new Agent/TCPSink/Sack1]
} else {
    set sink [new Agent/TCPSink]
}
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at $opt(start) "$ftp start"

proc state {} {
    global tcp opt
    set s [format {"ack":%d,"cwnd":%.2f,"srtt_ms":%.2f} [$tcp set ack_] [$tcp set cwnd_] \
        [expr {[$tcp set srtt_] * [$tcp set tcpTick_] / 8.0 * 1e3}]]
    if {$opt(agent) eq "Vegas"} {
        append s [format {,"v_rtt_ms":%.3f} [expr {[$tcp set v_rtt_] * 1e3}]]
    }
    return $s
}
set snap {}
proc snapshot {name} {
    global snap
    lappend snap "\"$name\":{[state]}"
}
proc jump {} {
    global ns A0 BS opt
    [[$ns link $A0 $BS] link] set delay_ [expr {[$ns delay_parse $opt(extra)] + 0.010}]
}
set acks {}
proc mark {} {
    global tcp acks
    lappend acks [$tcp set ack_]
}
$ns at $opt(start) "mark"
$ns at [expr {$opt(jump) - 1e-6}] "mark; snapshot before"
$ns at $opt(jump) "jump"
if {$opt(outage) > 0} {
    $ns at $opt(jump) "$em set rate_ 1.0"
    $ns at [expr {$opt(jump) + $opt(outage)}] "$em set rate_ 0.0"
}
$ns at [expr {$opt(jump) + $opt(settle)}] "mark"
$ns at [expr {$opt(stop) - 20.0}] "mark"
proc finish {} {
    global opt acks tcp snap
    mark
    snapshot end
    lassign $acks a0 a1 a2 a20 a3
    set g1 [expr {($a1 - $a0) * $opt(pkt) * 8.0 / ($opt(jump) - $opt(start)) / 1e6}]
    set t2 [expr {$opt(stop) - $opt(jump) - $opt(settle)}]
    set g2 [expr {($a3 - $a2) * $opt(pkt) * 8.0 / $t2 / 1e6}]
    set g [expr {($a3 - $a0) * $opt(pkt) * 8.0 / ($opt(stop) - $opt(start)) / 1e6}]
    set g20 [expr {($a3 - $a20) * $opt(pkt) * 8.0 / 20.0 / 1e6}]
    puts [format {{"sim":"ns-2","version":"2.35","agent":"%s","bneck":"%s","ifq":%d,"extra":"%s","jump_s":%.3f,"goodput_before_mbps":%.4f,"goodput_after_mbps":%.4f,"goodput_last20_mbps":%.4f,"goodput_mbps":%.4f,"rto_events":%d,"outage_s":%s,%s}} \
        $opt(agent) $opt(bneck) $opt(ifq) $opt(extra) $opt(jump) $g1 $g2 $g20 $g [$tcp set nrexmit_] $opt(outage) [join $snap ,]]
    exit 0
}
$ns at $opt(stop) "finish"
$ns run

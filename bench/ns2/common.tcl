# Helpers shared by the wifitcp ns-2 reference scripts (r1.tcl, r2.tcl).
# Our own code for Debian's ns-2 2.35 (package ns2).

# Parse "key=value" command-line words into the array named by $arrName,
# refusing unknown keys (one line naming the key, exit status 2).
proc parse_args {arrName argv} {
    upvar $arrName opt
    foreach a $argv {
        set kv [split $a =]
        set k [lindex $kv 0]
        if {[llength $kv] != 2 || ![info exists opt($k)]} {
            puts stderr "bad argument '$a' (known: [lsort [array names opt]])"
            exit 2
        }
        set opt($k) [lindex $kv 1]
    }
}

proc jain {xs} {
    set s 0.0; set s2 0.0
    foreach x $xs { set s [expr {$s + $x}]; set s2 [expr {$s2 + $x*$x}] }
    if {[llength $xs] == 0 || $s2 == 0} { return 1.0 }
    return [expr {$s*$s / ([llength $xs] * $s2)}]
}

proc json_list {xs {fmt %.4f}} {
    set out {}
    foreach x $xs { lappend out [format $fmt $x] }
    return "\[[join $out ,]\]"
}

proc min_of {xs} { set m [lindex $xs 0]; foreach x $xs { if {$x < $m} { set m $x } }; return $m }
proc max_of {xs} { set m [lindex $xs 0]; foreach x $xs { if {$x > $m} { set m $x } }; return $m }

# 802.11g ERP-OFDM / 802.11a OFDM timing for ns-2's Mac/802_11.
#
# ns-2 computes a frame's airtime as
#   8*floor((PreambleLength_+PLCPHeaderLength_)/8)/PLCPDataRate_ + 8*MPDU/rate
# and EIFS as SIFS + DIFS + 8*(plcp bytes + 14)/PLCPDataRate_. There are no OFDM
# symbols, SERVICE/tail bits or signal extension, so the PLCP part is calibrated:
# 168 bits at 5.6 Mbit/s = 30 us of fixed overhead per frame, which makes
#  - a 1534-byte ns-2 MPDU (1500-byte IP packet + 34-byte ns-2 MAC header/FCS)
#    take 541.3 us at 24 Mbit/s (standard ERP-OFDM, 1536-byte MPDU: 542 us),
#  - a 14-byte ACK at 24 Mbit/s take 34.7 us (standard: 34 us),
#  - EIFS = 10 + 28 + 50 = 88 us (standard ERP-only BSS: SIFS + DIFS + 6 Mbit/s ACK = 88 us).
# For 802.11a (no signal extension, SIFS 16 us): 112 bits at 5.0909 Mbit/s = 22 us,
# so a 1528-byte MPDU at 54 Mbit/s takes 248.4 us (standard: 248 us), an ACK at
# 24 Mbit/s 26.7 us (standard: 28 us) and EIFS = 16 + 34 + 44 = 94 us (standard: 94 us).
proc set_erp_ofdm_timing {rate basic slot sifs cwmin cwmax} {
    Mac/802_11 set SlotTime_ $slot
    Mac/802_11 set SIFS_ $sifs
    Mac/802_11 set PreambleLength_ 128
    Mac/802_11 set PLCPHeaderLength_ 40
    Mac/802_11 set PLCPDataRate_ 5.6e6
    Mac/802_11 set dataRate_ $rate
    Mac/802_11 set basicRate_ $basic
    Mac/802_11 set CWMin_ $cwmin
    Mac/802_11 set CWMax_ $cwmax
    Mac/802_11 set RTSThreshold_ 3000 ;# larger than any frame: RTS/CTS off
    Mac/802_11 set ShortRetryLimit_ 7
    Mac/802_11 set LongRetryLimit_ 4
}

proc set_ofdm_a_timing {rate basic cwmin cwmax} {
    Mac/802_11 set SlotTime_ 0.000009
    Mac/802_11 set SIFS_ 0.000016
    Mac/802_11 set PreambleLength_ 80
    Mac/802_11 set PLCPHeaderLength_ 32
    Mac/802_11 set PLCPDataRate_ 5.0909e6
    Mac/802_11 set dataRate_ $rate
    Mac/802_11 set basicRate_ $basic
    Mac/802_11 set CWMin_ $cwmin
    Mac/802_11 set CWMax_ $cwmax
    Mac/802_11 set RTSThreshold_ 3000
    Mac/802_11 set ShortRetryLimit_ 7
    Mac/802_11 set LongRetryLimit_ 4
}

# Count MAC-level data transmissions and MAC ACKs in an old-format wireless trace
# (written only when stats=1). ackNode restricts the ACKs to those sent by one node
# ("_0_"), or "" for all nodes. Returns {data_tx ack_tx}.
proc mac_counts {file dataTypes {ackNode ""}} {
    set pat [join $dataTypes |]
    set acksel [expr {$ackNode eq "" ? "" : " && \$3==\"$ackNode\""}]
    set awk "\$1==\"s\" && \$4==\"MAC\" && \$7 ~ /^($pat)\$/ {d++} \
             \$1==\"s\" && \$4==\"MAC\" && \$7==\"ACK\"$acksel {a++} \
             END {printf \"%d %d\", d, a}"
    return [exec awk $awk $file]
}

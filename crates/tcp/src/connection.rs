//! One TCP endpoint: the RFC 9293 state machine gluing the sender
//! ([`crate::sender`]), the receiver ([`crate::recv`]), the handshake, option
//! negotiation and connection teardown.
//!
//! Driving contract (sans-I/O): the caller passes `now` to every call; time
//! never goes backwards (asserted). After every input (`on_segment`,
//! `on_timer`, `send`, `close`, `read`) the caller drains
//! [`Connection::poll_transmit`] until it returns `None`, wraps each
//! [`Segment`] into a packet, and calls [`Connection::on_timer`] at
//! [`Connection::next_wakeup`].
//!
//! Not modelled (documented deviations): simultaneous open, RST generation
//! (received RSTs abort the connection), urgent data, PAWS (RFC 7323 5),
//! D-SACK (RFC 2883), spurious-retransmission detection (F-RTO, Eifel),
//! TCP Fast Open, keep-alives.
use crate::cc::CongestionControl;
use crate::config::TcpConfig;
use crate::ecn::Ecn;
use crate::recovery::RtoOutcome;
use crate::recv::{AckNeed, Receiver};
use crate::sender::{AckSeg, AckVerdict, LossState, Sender, TxData};
use crate::seq::SeqSpace;
use crate::stats::TcpStats;
use std::collections::VecDeque;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wire::{SackBlock, TcpFlags, TcpHeader, TcpOptions};

/// RFC 9293 section 3.3.2 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl TcpState {
    /// States in which both sequence spaces are known.
    pub fn is_synchronized(self) -> bool {
        !matches!(self, TcpState::Closed | TcpState::Listen | TcpState::SynSent | TcpState::SynReceived)
    }
}

/// A segment to put on the wire: header plus payload length (payload bytes
/// are not modelled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub header: TcpHeader,
    pub payload_len: u32,
    /// Data or FIN sent before (retransmission), for the simulator's metrics.
    pub retransmission: bool,
    /// The ECN codepoint for the IP header ([`crate::ecn`]): Not-ECT
    /// unless ECN is in use and this is new data.
    pub ecn: Ecn,
}

/// Options the peer announced in its SYN / SYN-ACK.
#[derive(Clone, Copy, Debug, Default)]
struct PeerSyn {
    mss: Option<u16>,
    wscale: Option<u8>,
    sack: bool,
    tsval: Option<u32>,
}

/// RFC 9293 3.7.1: MSS assumed when the peer sends no MSS option.
const DEFAULT_PEER_MSS: u32 = 536;
/// RFC 7323 section 3.2: the timestamps option takes 10 bytes, 12 aligned.
const TS_OPTION_LEN: u32 = 12;

#[derive(Debug)]
pub struct Connection {
    cfg: TcpConfig,
    state: TcpState,
    local_port: u16,
    remote_port: u16,
    iss: SeqSpace,
    irs: SeqSpace,
    snd: Sender,
    rcv: Receiver,
    rcv_wscale: u8,
    snd_wscale: u8,
    ws_ok: bool,
    sack_ok: bool,
    ts_ok: bool,
    syn_tx: u32,
    syn_sent_at: Option<SimTime>,
    syn_deadline: Option<SimTime>,
    syn_pending: bool,
    syn_timed_out: bool,
    probe_pending: bool,
    out: VecDeque<Segment>,
    time_wait_deadline: Option<SimTime>,
    last_now: SimTime,
    aborted: bool,
    /// The ECN codepoint of the segment being processed.
    rx_ecn: Ecn,
}

/// A random initial sequence number from the connection's RNG stream
/// (RFC 9293 3.4.1 asks for unpredictable ISNs; determinism comes from
/// the stream's seed).
pub fn random_isn(rng: &mut RngStream) -> u32 {
    rng.next_u64() as u32
}

impl Connection {
    fn new(cfg: TcpConfig, mut cc: Box<dyn CongestionControl>, local_port: u16, remote_port: u16, isn: u32) -> Self {
        if let Err(e) = cfg.validate() {
            panic!("invalid TcpConfig: {e}");
        }
        let buf = cfg.recv_buffer.bytes(cfg.mss);
        // RFC 7323 2.3: the smallest shift that makes the buffer fit the
        // 16-bit field, at most 14.
        let mut shift = 0u8;
        while cfg.window_scaling && shift < 14 && (buf >> shift) > 65_535 {
            shift += 1;
        }
        cc.seed(isn as u64);
        Connection {
            snd: Sender::new(&cfg, cc),
            rcv: Receiver::new(buf, cfg.mss, cfg.auto_consume, cfg.delayed_ack),
            cfg,
            state: TcpState::Closed,
            local_port,
            remote_port,
            iss: SeqSpace::new(isn),
            irs: SeqSpace::new(0),
            rcv_wscale: shift,
            snd_wscale: 0,
            ws_ok: false,
            sack_ok: false,
            ts_ok: false,
            syn_tx: 0,
            syn_sent_at: None,
            syn_deadline: None,
            syn_pending: false,
            syn_timed_out: false,
            probe_pending: false,
            out: VecDeque::new(),
            time_wait_deadline: None,
            last_now: SimTime::ZERO,
            aborted: false,
            rx_ecn: Ecn::NotEct,
        }
    }

    /// Active open (RFC 9293 3.10.1): the SYN is ready for `poll_transmit`.
    /// Panics if `cfg` is invalid: the simulator's configuration check must
    /// call [`TcpConfig::validate`] first and report its one-line error.
    pub fn connect(
        now: SimTime,
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        local_port: u16,
        remote_port: u16,
        isn: u32,
    ) -> Self {
        let mut c = Self::new(cfg, cc, local_port, remote_port, isn);
        c.last_now = now;
        c.state = TcpState::SynSent;
        c.syn_pending = true;
        c
    }

    /// Passive open: wait for a SYN on `local_port` from any remote port.
    pub fn listen(cfg: TcpConfig, cc: Box<dyn CongestionControl>, local_port: u16, isn: u32) -> Self {
        let mut c = Self::new(cfg, cc, local_port, 0, isn);
        c.state = TcpState::Listen;
        c
    }

    fn check_time(&mut self, now: SimTime) {
        assert!(now >= self.last_now, "time went backwards: {now:?} < {:?}", self.last_now);
        self.last_now = now;
    }

    // ----- application side -------------------------------------------

    /// The application writes `bytes` more bytes (ignored after `close`).
    pub fn send(&mut self, bytes: u64) {
        if !self.snd.fin_queued {
            self.snd.app_end += bytes;
        }
    }

    /// The application always has data (bulk transfer, FTP-like source).
    pub fn set_infinite_source(&mut self) {
        if !self.snd.fin_queued {
            self.snd.infinite = true;
        }
    }

    /// The application closes its sending direction: a FIN follows the data
    /// already written (an infinite source stops at what was sent).
    /// Deviation: in SYN-SENT, RFC 9293 3.10.4 deletes the connection; here
    /// the FIN is deferred until the connection is established (as RFC 9293
    /// prescribes for SYN-RECEIVED), so "write N bytes and close" at time 0
    /// works.
    pub fn close(&mut self, now: SimTime) {
        self.check_time(now);
        match self.state {
            TcpState::Listen => self.enter_closed(),
            TcpState::Closed => {}
            _ => {
                if self.snd.infinite {
                    self.snd.infinite = false;
                    self.snd.app_end = self.snd.snd_max;
                }
                self.snd.fin_queued = true;
            }
        }
    }

    /// Read up to `max` delivered bytes (only when `auto_consume` is off);
    /// sends a window update if the window opened enough.
    pub fn read(&mut self, now: SimTime, max: u64) -> u64 {
        self.check_time(now);
        let (n, update) = self.rcv.read(max);
        if update && self.state.is_synchronized() {
            self.queue_ack(now);
        }
        n
    }

    // ----- network side -----------------------------------------------

    /// An arriving segment for this endpoint, Not-ECT (see
    /// [`Connection::on_segment_ecn`]).
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, payload_len: u32) {
        self.on_segment_ecn(now, h, payload_len, Ecn::NotEct)
    }

    /// An arriving segment for this endpoint, whose IP header carried the
    /// ECN codepoint `ecn`.
    pub fn on_segment_ecn(&mut self, now: SimTime, h: &TcpHeader, payload_len: u32, ecn: Ecn) {
        self.check_time(now);
        self.rx_ecn = ecn;
        if h.dst_port != self.local_port || (self.state != TcpState::Listen && h.src_port != self.remote_port) {
            return;
        }
        if h.flags.has(TcpFlags::RST) {
            if !matches!(self.state, TcpState::Listen | TcpState::Closed) {
                self.aborted = true;
                self.enter_closed();
            }
            return;
        }
        match self.state {
            TcpState::Closed => {}
            TcpState::Listen => self.on_listen(h),
            TcpState::SynSent => self.on_syn_sent(now, h),
            TcpState::SynReceived => self.on_syn_received(now, h, payload_len),
            _ => self.on_synchronized(now, h, payload_len),
        }
    }

    fn on_listen(&mut self, h: &TcpHeader) {
        if !h.flags.has(TcpFlags::SYN) || h.flags.has(TcpFlags::ACK) {
            return;
        }
        self.remote_port = h.src_port;
        self.irs = SeqSpace::new(h.seq);
        let peer = peer_syn(h);
        self.negotiate(&peer);
        self.snd.ecn.on_syn(h.flags.has(TcpFlags::ECE), h.flags.has(TcpFlags::CWR));
        self.state = TcpState::SynReceived;
        self.syn_pending = true;
    }

    fn on_syn_sent(&mut self, now: SimTime, h: &TcpHeader) {
        let syn_ack = h.flags.has(TcpFlags::SYN) && h.flags.has(TcpFlags::ACK);
        // RFC 9293 3.10.7.3: the ACK must acknowledge our SYN (ISS + 1).
        // A bare SYN would be a simultaneous open, which is not modelled.
        if !syn_ack || h.ack != self.iss.wire(1) {
            return;
        }
        self.irs = SeqSpace::new(h.seq);
        let peer = peer_syn(h);
        self.negotiate(&peer);
        self.snd.ecn.on_syn_ack(h.flags.has(TcpFlags::ECE), h.flags.has(TcpFlags::CWR));
        // The SYN-ACK's window is never scaled (RFC 7323 2.2).
        let wnd = h.window as u64;
        self.handshake_rtt_sample(now);
        self.establish(now, wnd, 0);
        self.queue_ack(now);
    }

    fn on_syn_received(&mut self, now: SimTime, h: &TcpHeader, payload_len: u32) {
        if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) {
            // The peer retransmitted its SYN: our SYN-ACK was lost.
            if h.seq == self.irs.wire(0) {
                self.syn_pending = true;
            }
            return;
        }
        if !h.flags.has(TcpFlags::ACK) || h.ack != self.iss.wire(1) {
            return;
        }
        let seg_seq = self.irs.unwrap(h.seq, 1).unwrap_or(1);
        self.handshake_rtt_sample(now);
        let wnd = (h.window as u64) << self.snd_wscale;
        self.establish(now, wnd, seg_seq);
        self.on_synchronized(now, h, payload_len);
    }

    /// RTT sample from the handshake if the SYN (SYN-ACK) was sent once
    /// (Karn's rule; RFC 6298 allows SYN samples).
    fn handshake_rtt_sample(&mut self, now: SimTime) {
        if self.syn_tx == 1 {
            if let Some(t) = self.syn_sent_at {
                let r = now.saturating_since(t);
                self.snd.rtt.on_sample(r);
                self.snd.cc.on_rtt_sample(now, r);
                self.snd.stats.rtt_samples += 1;
            }
        }
    }

    /// Record the peer's SYN options and decide which options are in use
    /// (each needs both sides: RFC 7323 2.2 and 3.2, RFC 2018 section 2).
    fn negotiate(&mut self, peer: &PeerSyn) {
        self.ws_ok = self.cfg.window_scaling && peer.wscale.is_some();
        if self.ws_ok {
            self.snd_wscale = peer.wscale.unwrap_or(0).min(14);
        } else {
            self.snd_wscale = 0;
            self.rcv_wscale = 0;
        }
        self.rcv.set_wscale(self.rcv_wscale);
        self.sack_ok = self.cfg.sack && peer.sack;
        self.ts_ok = self.cfg.timestamps && peer.tsval.is_some();
        if let (true, Some(v)) = (self.ts_ok, peer.tsval) {
            self.rcv.init_ts_recent(v);
        }
        let peer_mss = peer.mss.map_or(DEFAULT_PEER_MSS, |m| m as u32);
        let mut smss = self.cfg.mss.min(peer_mss);
        if self.ts_ok {
            // RFC 6691 section 2: data is reduced by the options carried.
            smss -= TS_OPTION_LEN;
        }
        self.snd.smss = smss;
    }

    fn establish(&mut self, now: SimTime, wnd: u64, wl1: u64) {
        self.state = TcpState::Established;
        self.syn_deadline = None;
        self.syn_pending = false;
        let smss = self.snd.smss;
        // RFC 5681 3.1 / RFC 6928 2: one segment if the SYN or SYN-ACK
        // was retransmitted.
        let iw = if self.syn_tx > 1 { smss as u64 } else { self.cfg.initial_window.bytes(smss) };
        self.snd.establish(now, smss, iw, self.sack_ok, self.ts_ok, wnd, wl1);
        if self.syn_timed_out {
            // RFC 6298 section 5, last paragraph.
            self.snd.rtt.reinit_after_syn_timeout();
        }
    }

    fn on_synchronized(&mut self, now: SimTime, h: &TcpHeader, payload_len: u32) {
        let Some(seg_seq) = self.irs.unwrap(h.seq, self.rcv.rcv_nxt()) else { return };
        if h.flags.has(TcpFlags::SYN) {
            // A retransmitted SYN-ACK (our handshake ACK was lost) or a SYN
            // in window: answer with an ACK (RFC 9293 3.10.7.4, RFC 5961 4).
            self.queue_ack(now);
            return;
        }
        let fin = h.flags.has(TcpFlags::FIN);
        if self.ts_ok {
            if let Some((tsval, _)) = h.options.timestamps {
                self.rcv.note_tsval(seg_seq, tsval);
            }
        }
        if h.flags.has(TcpFlags::ACK) && !self.process_ack(now, h, seg_seq, payload_len == 0 && !fin) {
            return;
        }
        if self.state == TcpState::Closed {
            return;
        }
        if self.snd.ecn.ok && payload_len > 0 {
            self.ecn_on_data(now, h);
        }
        let rx = self.rcv.on_data(now, seg_seq, payload_len as u64, fin);
        if rx.fin_consumed {
            self.on_peer_fin(now);
        } else if fin && self.state == TcpState::TimeWait {
            // A retransmitted FIN: acknowledge and restart 2 MSL (RFC 9293).
            self.time_wait_deadline = Some(now + self.cfg.time_wait);
        }
        if rx.ack == AckNeed::Now {
            self.queue_ack(now);
        }
    }

    /// The receiver's ECN echo state for an arriving data segment
    /// ([`crate::ecn`]); under `accurate`, a change of CE state first sends
    /// the owed delayed ACK with the old state (RFC 8257 3.2).
    fn ecn_on_data(&mut self, now: SimTime, h: &TcpHeader) {
        if self.rx_ecn == Ecn::Ce {
            self.snd.stats.ce_received += 1;
        }
        let pending = self.rcv.delack_deadline().is_some();
        let (flush, old) = self.snd.ecn.on_data(self.rx_ecn, h.flags.has(TcpFlags::CWR), pending);
        if flush {
            let new = std::mem::replace(&mut self.snd.ecn.ece, old);
            self.queue_ack(now);
            self.snd.ecn.ece = new;
        }
    }

    /// The ACK part of a synchronized segment. Returns false if the
    /// segment must be dropped.
    fn process_ack(&mut self, now: SimTime, h: &TcpHeader, seg_seq: u64, pure: bool) -> bool {
        let Some(ack) = self.iss.unwrap(h.ack, self.snd.snd_una) else { return false };
        let una = self.snd.snd_una;
        let sacks: Vec<(u64, u64)> = if self.sack_ok {
            h.options
                .sack
                .iter()
                .filter_map(|b| Some((self.iss.unwrap(b.left, una)?, self.iss.unwrap(b.right, una)?)))
                .collect()
        } else {
            Vec::new()
        };
        let a = AckSeg {
            now,
            ack,
            wnd: (h.window as u64) << self.snd_wscale,
            seg_seq,
            sacks: &sacks,
            tsecr: h.options.timestamps.map(|t| t.1),
            pure,
        };
        let una0 = self.snd.snd_una;
        match self.snd.on_ack(&a) {
            AckVerdict::TooNew => {
                self.queue_ack(now);
                return false;
            }
            AckVerdict::Processed if self.snd.ecn.ok => {
                let acked = self.snd.snd_una - una0;
                self.snd.on_ecn_echo(now, h.flags.has(TcpFlags::ECE), acked);
            }
            _ => {}
        }
        if self.snd.fin_sent && self.snd.snd_una == self.snd.snd_max {
            self.on_our_fin_acked(now);
        }
        true
    }

    fn on_our_fin_acked(&mut self, now: SimTime) {
        match self.state {
            TcpState::FinWait1 => self.state = TcpState::FinWait2,
            TcpState::Closing => self.enter_time_wait(now),
            TcpState::LastAck => self.enter_closed(),
            _ => {}
        }
    }

    fn on_peer_fin(&mut self, now: SimTime) {
        match self.state {
            TcpState::Established => self.state = TcpState::CloseWait,
            TcpState::FinWait1 => self.state = TcpState::Closing,
            TcpState::FinWait2 => self.enter_time_wait(now),
            _ => {}
        }
    }

    fn enter_time_wait(&mut self, now: SimTime) {
        self.state = TcpState::TimeWait;
        self.snd.rtx_deadline = None;
        if let Some(r) = &mut self.snd.rack {
            r.reset_timers();
        }
        self.time_wait_deadline = Some(now + self.cfg.time_wait);
    }

    fn enter_closed(&mut self) {
        self.state = TcpState::Closed;
        self.snd.rtx_deadline = None;
        self.snd.persist_deadline = None;
        if let Some(r) = &mut self.snd.rack {
            r.reset_timers();
        }
        self.syn_deadline = None;
        self.syn_pending = false;
        self.time_wait_deadline = None;
    }

    // ----- timers -----------------------------------------------------

    /// Fire every timer due at or before `now`.
    pub fn on_timer(&mut self, now: SimTime) {
        self.check_time(now);
        if self.rcv.delack_deadline().is_some_and(|d| d <= now) && self.state.is_synchronized() {
            self.queue_ack(now);
        }
        if self.syn_deadline.is_some_and(|d| d <= now) {
            self.on_syn_timeout();
        }
        if self.snd.rtx_deadline.is_some_and(|d| d <= now) && self.snd.on_rto(now) == RtoOutcome::Abort {
            self.aborted = true;
            self.enter_closed();
        }
        if self.snd.rack.as_ref().and_then(|r| r.deadline()).is_some_and(|d| d <= now) {
            self.snd.on_rack_timer(now);
        }
        if self.snd.persist_deadline.is_some_and(|d| d <= now) {
            self.snd.on_persist_timeout();
            self.probe_pending = true;
        }
        if self.time_wait_deadline.is_some_and(|d| d <= now) {
            self.enter_closed();
        }
        // A paced segment's release time: `poll_transmit` sends it.
        if self.snd.pace_wait.is_some_and(|d| d <= now) {
            self.snd.pace_wait = None;
        }
    }

    /// SYN / SYN-ACK retransmission with exponential backoff (RFC 6298
    /// 5.5; RFC 9293 3.8.1).
    fn on_syn_timeout(&mut self) {
        self.syn_deadline = None;
        if self.syn_tx > self.cfg.syn_retries {
            self.aborted = true;
            self.enter_closed();
            return;
        }
        self.syn_timed_out = true;
        self.snd.rtt.back_off();
        self.syn_pending = true;
    }

    /// The earliest time at which [`Connection::on_timer`] must be called.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        [
            self.rcv.delack_deadline(),
            self.syn_deadline,
            self.snd.rtx_deadline,
            self.snd.persist_deadline,
            self.snd.rack.as_ref().and_then(|r| r.deadline()),
            self.time_wait_deadline,
            self.snd.pace_wait,
        ]
        .into_iter()
        .fold(None, SimTime::earliest)
    }

    // ----- output -----------------------------------------------------

    /// The next segment to send now, if any.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Segment> {
        self.check_time(now);
        if let Some(s) = self.out.pop_front() {
            return Some(s);
        }
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                if self.syn_pending {
                    self.syn_pending = false;
                    return Some(self.build_syn(now));
                }
                None
            }
            TcpState::Established
            | TcpState::CloseWait
            | TcpState::FinWait1
            | TcpState::Closing
            | TcpState::LastAck => {
                if self.probe_pending {
                    self.probe_pending = false;
                    return Some(self.build_probe(now));
                }
                let tx = self.snd.next_segment(now)?;
                Some(self.build_data(now, tx))
            }
            _ => None,
        }
    }

    fn build_syn(&mut self, now: SimTime) -> Segment {
        let passive = self.state == TcpState::SynReceived;
        self.syn_tx += 1;
        if self.syn_tx > 1 {
            self.snd.stats.syn_retransmits += 1;
        }
        self.syn_sent_at = Some(now);
        self.syn_deadline = Some(now + self.snd.rtt.rto());
        let mut opts = TcpOptions { mss: Some(self.cfg.mss.min(65_535) as u16), ..Default::default() };
        // RFC 7323 2.2 / 3.2, RFC 2018 2: a SYN-ACK carries an option only
        // if the SYN did.
        if self.cfg.window_scaling && (!passive || self.ws_ok) {
            opts.window_scale = Some(self.rcv_wscale);
        }
        opts.sack_permitted = self.cfg.sack && (!passive || self.sack_ok);
        if self.cfg.timestamps && (!passive || self.ts_ok) {
            let ecr = if passive { self.rcv.ts_recent().unwrap_or(0) } else { 0 };
            opts.timestamps = Some((self.snd.ts_val(now), ecr));
        }
        let mut flags = TcpFlags(TcpFlags::SYN);
        // RFC 3168 6.1.1: ECN-setup SYN (ECE, CWR) and SYN-ACK (ECE).
        if !passive && self.snd.ecn.offered() {
            flags = flags.with(TcpFlags::ECE | TcpFlags::CWR);
        } else if passive && self.snd.ecn.ok {
            flags = flags.with(TcpFlags::ECE);
        }
        let mut ack = 0;
        if passive {
            flags = flags.with(TcpFlags::ACK);
            ack = self.irs.wire(1);
            self.rcv.on_ack_sent(1);
        }
        let window = self.rcv.syn_window_field();
        let header = TcpHeader {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss.wire(0),
            ack,
            flags,
            window,
            options: opts,
        };
        self.snd.stats.segments_sent += 1;
        Segment { header, payload_len: 0, retransmission: self.syn_tx > 1, ecn: Ecn::NotEct }
    }

    /// A header with ACK set and our current ACK, window and options.
    fn header(&mut self, now: SimTime, seq_abs: u64, extra: u8) -> TcpHeader {
        let rcv_nxt = self.rcv.rcv_nxt();
        let mut opts = TcpOptions::default();
        if self.ts_ok {
            opts.timestamps = Some((self.snd.ts_val(now), self.rcv.ts_recent().unwrap_or(0)));
        }
        if self.sack_ok {
            // RFC 2018 section 3: at most 4 blocks, 3 with timestamps.
            let max = if self.ts_ok { 3 } else { 4 };
            opts.sack = self
                .rcv
                .sack_blocks(max)
                .into_iter()
                .map(|(l, r)| SackBlock { left: self.irs.wire(l), right: self.irs.wire(r) })
                .collect();
        }
        let window = self.rcv.window_field();
        self.rcv.on_ack_sent(rcv_nxt);
        self.snd.stats.segments_sent += 1;
        let ece = if self.snd.ecn.ok && self.snd.ecn.ece { TcpFlags::ECE } else { 0 };
        TcpHeader {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss.wire(seq_abs),
            ack: self.irs.wire(rcv_nxt),
            flags: TcpFlags(TcpFlags::ACK | extra | ece),
            window,
            options: opts,
        }
    }

    /// Queue a pure ACK reflecting the current receive state.
    fn queue_ack(&mut self, now: SimTime) {
        let h = self.header(now, self.snd.snd_max, 0);
        self.snd.stats.acks_sent += 1;
        self.out.push_back(Segment { header: h, payload_len: 0, retransmission: false, ecn: Ecn::NotEct });
    }

    /// Zero-window probe: a segment with sequence number `snd_una - 1` that
    /// the peer must answer with an ACK carrying its window (the technique
    /// Linux uses; RFC 9293 3.8.6.1 allows probing).
    fn build_probe(&mut self, now: SimTime) -> Segment {
        let h = self.header(now, self.snd.snd_una - 1, 0);
        Segment { header: h, payload_len: 0, retransmission: false, ecn: Ecn::NotEct }
    }

    fn build_data(&mut self, now: SimTime, tx: TxData) -> Segment {
        let mut extra = if tx.fin { TcpFlags::FIN } else { 0 };
        // RFC 3168 6.1.5: retransmissions are Not-ECT; 6.1.2: CWR on the
        // first new data segment after a reduction.
        let mut ecn = Ecn::NotEct;
        if self.snd.ecn.ok && !tx.rtx && tx.payload > 0 {
            ecn = self.snd.cc.ect();
            if std::mem::take(&mut self.snd.ecn.cwr_due) {
                extra |= TcpFlags::CWR;
            }
        }
        let h = self.header(now, tx.start, extra);
        if tx.fin && !tx.rtx {
            match self.state {
                TcpState::Established => self.state = TcpState::FinWait1,
                TcpState::CloseWait => self.state = TcpState::LastAck,
                _ => {}
            }
        }
        Segment { header: h, payload_len: tx.payload, retransmission: tx.rtx, ecn }
    }

    // ----- observation ------------------------------------------------

    pub fn state(&self) -> TcpState {
        self.state
    }
    /// The connection was aborted (RST, too many retransmissions).
    pub fn aborted(&self) -> bool {
        self.aborted
    }
    /// ECN is in use on this connection (negotiated on the handshake).
    pub fn ecn_negotiated(&self) -> bool {
        self.snd.ecn.ok
    }
    pub fn local_port(&self) -> u16 {
        self.local_port
    }
    pub fn remote_port(&self) -> u16 {
        self.remote_port
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn cc_name(&self) -> &'static str {
        self.snd.cc.name()
    }
    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.snd.win.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.snd.win.ssthresh
    }
    /// Effective sender MSS (payload bytes per full segment).
    pub fn smss(&self) -> u32 {
        self.snd.smss
    }
    pub fn srtt(&self) -> Option<SimDur> {
        self.snd.rtt.srtt()
    }
    /// Current RTO including backoff.
    pub fn rto(&self) -> SimDur {
        self.snd.rtt.rto()
    }
    /// Number of RTO doublings in force (RFC 6298 (5.5)).
    pub fn rto_backoff(&self) -> u32 {
        self.snd.rtt.backoff()
    }
    /// Bytes in flight as used for the send decision (FlightSize or pipe).
    pub fn in_flight(&self) -> u64 {
        self.snd.in_flight()
    }
    /// `snd_max - snd_una` in bytes (sequence space).
    pub fn outstanding(&self) -> u64 {
        self.snd.snd_max - self.snd.snd_una
    }
    /// The send window last advertised by the peer (bytes, scaled).
    pub fn peer_window(&self) -> u64 {
        self.snd.snd_wnd
    }
    pub fn loss_state(&self) -> LossState {
        self.snd.state
    }
    /// Payload bytes written by the application and not yet acknowledged
    /// (`u64::MAX` for an infinite source), e.g. for a proxy's backpressure.
    pub fn unacked_app_bytes(&self) -> u64 {
        self.snd.unacked_app_bytes()
    }
    /// Everything the application wrote (and the FIN, if closed) is acked.
    pub fn all_acked(&self) -> bool {
        !self.snd.infinite && self.snd.snd_una == self.snd.app_end + self.snd.fin_sent as u64
    }
    pub fn stats(&self) -> &TcpStats {
        &self.snd.stats
    }
    /// The rate data segments are paced at (bytes per second), if pacing.
    pub fn pacing_rate(&self) -> Option<f64> {
        self.snd.pacing_rate()
    }
    /// Move the cwnd trace and loss-event log out (for periodic flushing
    /// by the simulator; recording continues).
    pub fn take_trace(&mut self) -> (Vec<crate::stats::CwndSample>, Vec<crate::stats::LossEvent>) {
        let st = &mut self.snd.stats;
        (std::mem::take(&mut st.cwnd_trace), std::mem::take(&mut st.loss_events))
    }
    /// In-order payload bytes delivered to the application by the receiver.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv.delivered_bytes()
    }
    /// Bytes delivered but not yet read (only without `auto_consume`).
    pub fn unread_bytes(&self) -> u64 {
        self.rcv.unread()
    }
    /// Duplicate payload bytes received.
    pub fn dup_bytes_received(&self) -> u64 {
        self.rcv.dup_bytes
    }
    /// Segments received above `rcv_nxt`.
    pub fn ooo_segments_received(&self) -> u64 {
        self.rcv.ooo_segments
    }
    /// The peer's FIN has been received in order.
    pub fn peer_closed(&self) -> bool {
        self.rcv.fin_consumed()
    }
    /// Receiver invariant: one in-order stream, no gap, no duplicate; and
    /// the sender's scoreboard counters are consistent.
    pub fn check_stream_integrity(&self) -> Result<(), String> {
        self.rcv.check_stream_integrity()?;
        self.snd.sb.check()
    }
}

fn peer_syn(h: &TcpHeader) -> PeerSyn {
    PeerSyn {
        mss: h.options.mss,
        wscale: h.options.window_scale,
        sack: h.options.sack_permitted,
        tsval: h.options.timestamps.map(|t| t.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno::Reno;
    use crate::config::RecoveryVariant;

    const T0: SimTime = SimTime::ZERO;

    fn cfg() -> TcpConfig {
        TcpConfig { mss: 1000, delayed_ack: None, timestamps: true, ..TcpConfig::default() }
    }

    fn syn(opts: TcpOptions) -> TcpHeader {
        TcpHeader {
            src_port: 5,
            dst_port: 80,
            seq: 77,
            ack: 0,
            flags: TcpFlags(TcpFlags::SYN),
            window: 65_535,
            options: opts,
        }
    }

    #[test]
    fn syn_ack_echoes_only_offered_options() {
        let mut b = Connection::listen(cfg(), Box::new(Reno::new()), 80, 1000);
        b.on_segment(T0, &syn(TcpOptions { mss: Some(536), ..Default::default() }), 0);
        let sa = b.poll_transmit(T0).unwrap().header;
        assert!(sa.flags.has(TcpFlags::SYN) && sa.flags.has(TcpFlags::ACK));
        assert_eq!(sa.ack, 78);
        assert_eq!(sa.options, TcpOptions { mss: Some(1000), ..Default::default() }, "RFC 7323 2.2/3.2, RFC 2018 2");
        let mut b = Connection::listen(cfg(), Box::new(Reno::new()), 80, 1000);
        let full = TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((5, 0)),
            sack: Default::default(),
        };
        b.on_segment(T0, &syn(full), 0);
        let sa = b.poll_transmit(T0).unwrap().header;
        assert!(sa.options.sack_permitted);
        assert_eq!(sa.options.window_scale, Some(7), "a 6 MiB buffer needs a shift of 7 (6 MiB >> 7 = 48 KiB)");
        assert_eq!(sa.options.timestamps, Some((0, 5)), "TSecr echoes the SYN's TSval");
    }

    /// Drive an active opener by hand up to ESTABLISHED with `n` data
    /// segments of 1000 bytes sent; returns the connection and the peer's
    /// ISN-relative sequence base.
    fn sender_with_data(v: RecoveryVariant, n: u64) -> (Connection, Vec<Segment>) {
        let (mut a, t) = established(TcpConfig { recovery: v, ..cfg() }, Box::new(Reno::new()), n);
        assert_eq!(a.state(), TcpState::Established);
        let mut out = vec![];
        while let Some(s) = a.poll_transmit(t) {
            if s.payload_len > 0 {
                out.push(s);
            }
        }
        (a, out)
    }

    fn ack(ackno: u32, window: u16, payload: bool) -> (TcpHeader, u32) {
        let h = TcpHeader {
            src_port: 80,
            dst_port: 5,
            seq: 501,
            ack: ackno,
            flags: TcpFlags(TcpFlags::ACK),
            window,
            options: TcpOptions::default(),
        };
        (h, if payload { 100 } else { 0 })
    }

    #[test]
    fn dupack_needs_same_window_and_no_data() {
        // RFC 5681 section 2: (b) no data, (e) unchanged window.
        let (mut a, sent) = sender_with_data(RecoveryVariant::NewReno, 10);
        assert_eq!(sent.len(), 10);
        let t = SimTime::from_millis(30);
        let (h, _) = ack(1001, 65_535, false);
        a.on_segment(t, &h, 0); // new ACK
        for w in [60_000u16, 61_000, 62_000] {
            let (h, _) = ack(1001, w, false);
            a.on_segment(t, &h, 0);
        }
        assert_eq!(a.stats().dupacks_received, 0, "window changes: not duplicates");
        let (h, len) = ack(1001, 62_000, true);
        a.on_segment(t, &h, len);
        assert_eq!(a.stats().dupacks_received, 0, "carries data: not a duplicate");
        for _ in 0..3 {
            let (h, _) = ack(1001, 62_000, false);
            a.on_segment(t, &h, 0);
        }
        assert_eq!(a.stats().dupacks_received, 3);
        assert_eq!(a.stats().fast_retransmits, 1);
        let rtx = std::iter::from_fn(|| a.poll_transmit(t)).find(|s| s.retransmission).unwrap();
        assert_eq!(rtx.header.seq, 1001);
        assert_eq!(a.loss_state(), LossState::Recovery);
    }

    #[test]
    fn ack_beyond_snd_max_is_answered_and_ignored() {
        let (mut a, _) = sender_with_data(RecoveryVariant::Reno, 3);
        let t = SimTime::from_millis(30);
        let (h, _) = ack(50_000, 65_535, false);
        a.on_segment(t, &h, 0);
        let s = a.poll_transmit(t).unwrap();
        assert_eq!((s.payload_len, s.header.ack), (0, 501), "RFC 9293 3.10.7.4: send an ACK");
        assert_eq!(a.outstanding(), 3000);
    }

    /// An established sender (handshake RTT 10 ms, MSS 1000, initial
    /// window 10) with `n` segments written.
    fn established(c: TcpConfig, cc: Box<dyn CongestionControl>, n: u64) -> (Connection, SimTime) {
        let c = TcpConfig { timestamps: false, initial_window: crate::config::InitialWindow::Segments(10), ..c };
        let mut a = Connection::connect(T0, c, cc, 5, 80, 0);
        a.poll_transmit(T0).unwrap();
        let sa = TcpHeader {
            src_port: 80,
            dst_port: 5,
            seq: 500,
            ack: 1,
            flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK),
            window: 65_535,
            options: TcpOptions { mss: Some(1000), ..Default::default() },
        };
        let t = SimTime::from_millis(10);
        a.on_segment(t, &sa, 0);
        assert!(a.poll_transmit(t).is_some_and(|s| s.payload_len == 0), "the handshake's ACK");
        a.send(n * 1000);
        (a, t)
    }

    /// Drive `a` by its wake-ups until `n` data segments left; their send
    /// times.
    fn paced_sends(a: &mut Connection, mut t: SimTime, n: usize) -> Vec<SimTime> {
        let mut at = vec![];
        while at.len() < n {
            while let Some(s) = a.poll_transmit(t) {
                assert!(s.payload_len > 0);
                at.push(t);
            }
            let Some(w) = a.next_wakeup() else { break };
            t = w;
            a.on_timer(t);
        }
        at
    }

    #[test]
    fn pacing_spaces_segments_and_wakes_at_the_release_time() {
        // without pacing the initial window leaves at once
        let (mut a, t) = established(cfg(), Box::new(Reno::new()), 10);
        assert_eq!(std::iter::from_fn(|| a.poll_transmit(t)).count(), 10);
        assert_eq!(a.pacing_rate(), None);
        // `pacing`: Linux's rate, 2 x cwnd / SRTT in slow start = 2 x
        // 10 000 B / 10 ms = 2 MB/s: one 1000-byte segment per 0.5 ms,
        // each released at the connection's wake-up
        let (mut a, t) = established(TcpConfig { pacing: true, ..cfg() }, Box::new(Reno::new()), 10);
        assert_eq!(a.pacing_rate(), Some(2e6));
        let at = paced_sends(&mut a, t, 10);
        assert_eq!(at.len(), 10);
        for (k, x) in at.iter().enumerate() {
            assert_eq!(*x, t + SimDur::from_micros(500) * k as u64, "segment {k}");
        }
        // the window still binds: nothing more before an ACK
        assert_eq!(a.next_wakeup(), Some(t + SimDur::from_secs(1)), "only the RTO");
    }

    #[test]
    fn bbr_paces_without_the_pacing_key() {
        // BBR's initial rate: 2.885 x 10 000 B / 10 ms (the handshake RTT)
        let bbr = crate::cc::CcConfig::Bbr(Default::default()).get().build();
        let (mut a, t) = established(cfg(), bbr, 10);
        let rate = a.pacing_rate().unwrap();
        assert!((rate - 2.885e6).abs() < 1.0, "{rate}");
        let at = paced_sends(&mut a, t, 10);
        let gap = SimDur((1000.0 * 1e9 / rate) as u64);
        assert_eq!(at[1] - at[0], gap);
        assert_eq!(at[9] - at[0], gap * 9);
    }

    #[test]
    #[should_panic(expected = "time went backwards")]
    fn time_never_goes_backwards() {
        let (mut a, _) = sender_with_data(RecoveryVariant::Reno, 1);
        a.on_timer(SimTime::from_millis(5));
    }
}

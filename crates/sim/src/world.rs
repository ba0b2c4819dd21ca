//! The run loop: wires a scenario's components together and drives them
//! with one event queue.
//!
//! Event order: (time, insertion sequence), enforced by `EventQueue`.
//! Invariants checked at the end of every run: the packet ledger balances
//! (generated = delivered + dropped by reason + held in a buffer).
use crate::config::{Direction, Pattern, Scenario};
use crate::ledger::Ledger;
use crate::metrics::{FlowStats, RunResult};
use crate::traffic::UdpSource;
use std::collections::VecDeque;
use wifitcp_core::{DropReason, EventQueue, FlowId, RngStream, SimDur, SimTime};
use wifitcp_wifi::mac::{Dcf, DcfParams, MacAddr};
use wifitcp_wifi::medium::{Bss, BssOutput, FixedPer};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, UdpHeader};

#[derive(Debug)]
enum Ev {
    Wake { gen: u64 },
    TxEnd { id: u64 },
    Source { flow: usize },
}

/// A WLAN interface's transmit queue (drop-tail, in packets).
struct TxQueue {
    q: VecDeque<(Packet, usize)>,
    cap: usize,
}

struct Flow {
    /// BSS index of the sending and receiving station (0 = AP).
    src: usize,
    dst: usize,
    src_port: u16,
    source: UdpSource,
    stats: FlowStats,
}

pub struct World {
    q: EventQueue<Ev>,
    bss: Bss,
    txq: Vec<TxQueue>,
    flows: Vec<Flow>,
    /// Saturated flows by sending station, and the round-robin cursor.
    saturated: Vec<(Vec<usize>, usize)>,
    ledger: Ledger,
    end: SimTime,
    warmup: SimTime,
    out: Vec<BssOutput>,
    spare: Vec<BssOutput>,
}

/// IPv4 address of BSS member `i` (0 = AP).
pub fn addr_of(i: usize) -> Ipv4Addr {
    Ipv4Addr::from(0x0a01_0000u32 + i as u32 + 1)
}

pub fn name_of(i: usize) -> String {
    if i == 0 {
        "ap".into()
    } else {
        format!("sta{}", i - 1)
    }
}

impl World {
    pub fn build(s: &Scenario, seed: u64) -> Result<World, String> {
        let timing = s.timing()?;
        let n = s.wlan.stations as usize + 1;
        let params = DcfParams {
            cw_min: s.mac.cw_min.unwrap_or(timing.cw_min_default),
            cw_max: s.mac.cw_max.unwrap_or(timing.cw_max_default),
            short_retry_limit: s.mac.short_retry_limit,
            long_retry_limit: s.mac.long_retry_limit,
            rts_threshold: s.mac.rts_threshold_bytes,
            busy_slot_counts: s.mac.backoff_rule == crate::config::BackoffRule::BusySlotCounts,
            eifs_after_timeout: s.mac.collision_restart == crate::config::CollisionRestart::Eifs,
            timing,
        };
        let macs = (0..n).map(|i| Dcf::new(MacAddr(i as u32), params.clone(), RngStream::derive(seed, &format!("mac/{}", name_of(i))))).collect();
        let errors = FixedPer { uplink: vec![s.wlan.per_uplink; n], downlink: vec![s.wlan.per_downlink; n] };
        let bss = Bss::new(macs, Box::new(errors), RngStream::derive(seed, "medium/errors"));
        let txq = (0..n).map(|_| TxQueue { q: VecDeque::new(), cap: s.mac.queue_packets as usize }).collect();
        let end = SimTime::from_secs_f64(s.scenario.duration_s);
        let mut w = World {
            q: EventQueue::with_capacity(4 * n + 16),
            bss,
            txq,
            flows: Vec::new(),
            saturated: vec![(Vec::new(), 0); n],
            ledger: Ledger::default(),
            end,
            warmup: SimTime::from_secs_f64(s.scenario.warmup_s),
            out: Vec::new(),
            spare: Vec::new(),
        };
        for (ti, tr) in s.traffic.iter().enumerate() {
            for k in tr.station_list(s.wlan.stations, &format!("traffic[{ti}]"))? {
                let sta = k as usize + 1;
                let (src, dst) = match tr.direction {
                    Direction::Uplink => (sta, 0),
                    Direction::Downlink => (0, sta),
                };
                let fi = w.flows.len();
                let interval = match tr.rate_mbps {
                    Some(r) => SimDur::from_secs_f64(tr.msdu_bytes as f64 * 8.0 / (r * 1e6)),
                    None => SimDur::ZERO,
                };
                let name = format!("{}/{}", tr.name, name_of(sta));
                let source = UdpSource {
                    pattern: tr.pattern,
                    msdu_bytes: tr.msdu_bytes,
                    interval,
                    start: SimTime::from_secs_f64(tr.start_s),
                    stop: tr.stop_s.map(SimTime::from_secs_f64).unwrap_or(end).min(end),
                    rng: RngStream::derive(seed, &format!("traffic/{name}")),
                };
                if tr.pattern == Pattern::Saturated {
                    w.saturated[src].0.push(fi);
                }
                w.q.push(source.first().min(end), Ev::Source { flow: fi });
                w.flows.push(Flow {
                    src,
                    dst,
                    src_port: 10_000 + fi as u16,
                    source,
                    stats: FlowStats::new(name, "udp", name_of(src), name_of(dst)),
                });
            }
        }
        let mut out = Vec::new();
        w.bss.reschedule_all(&mut out);
        w.out = out;
        w.drain_outputs();
        Ok(w)
    }

    /// Run to the end; returns the metrics.
    pub fn run(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        while let Some(t) = self.q.peek_time() {
            if t > self.end {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            match ev {
                Ev::Wake { gen } => self.bss.wake(now, gen, &mut self.out),
                Ev::TxEnd { id } => self.bss.tx_end(now, id, &mut self.out),
                Ev::Source { flow } => self.source_fires(now, flow),
            }
            self.drain_outputs();
        }
        let held: Vec<_> = self.txq.iter().flat_map(|t| t.q.iter().map(|(p, _)| p.id)).chain(self.bss.packets_in_service().map(|p| p.id)).collect();
        self.ledger.check(held.into_iter())?;
        Ok(crate::metrics::collect(&self.bss, self.flows.into_iter().map(|f| f.stats).collect(), &self.ledger, self.end, self.warmup, self.q.popped(), wall.elapsed().as_secs_f64()))
    }

    fn now(&self) -> SimTime {
        self.q.now()
    }

    fn drain_outputs(&mut self) {
        let mut batch = std::mem::take(&mut self.spare);
        while !self.out.is_empty() {
            std::mem::swap(&mut batch, &mut self.out);
            for o in batch.drain(..) {
                self.handle_output(o);
            }
        }
        self.spare = batch;
    }

    fn handle_output(&mut self, o: BssOutput) {
        {
            let now = self.now();
            match o {
                BssOutput::Wake { at, gen } => {
                    self.q.push(at, Ev::Wake { gen });
                }
                BssOutput::TxEnd { id, at } => {
                    self.q.push(at, Ev::TxEnd { id });
                }
                BssOutput::Deliver { sta, msdu, .. } => self.deliver(now, sta, msdu),
                BssOutput::Acked { .. } => {}
                BssOutput::Dropped { msdu, reason, .. } => self.ledger.drop(msdu.id, reason),
                BssOutput::Ready { sta } => self.feed(now, sta),
            }
        }
    }

    /// A packet reached BSS member `sta`.
    fn deliver(&mut self, now: SimTime, sta: usize, p: Packet) {
        if p.ip.dst != addr_of(sta) {
            // Forwarding inside the BSS is not modelled yet.
            self.ledger.drop(p.id, DropReason::NoRoute);
            return;
        }
        if self.ledger.deliver(p.id) {
            let f = &mut self.flows[p.flow.idx()];
            if now >= self.warmup {
                f.stats.on_delivered(&p, now);
            }
        }
    }

    fn source_fires(&mut self, now: SimTime, fi: usize) {
        let f = &mut self.flows[fi];
        if !f.source.active(now) {
            return;
        }
        let src = f.src;
        if f.source.pattern == Pattern::Saturated {
            self.feed(now, src);
            return;
        }
        let next = f.source.next_after(now);
        if !next.is_never() {
            self.q.push(next, Ev::Source { flow: fi });
        }
        let p = self.make_packet(now, fi);
        self.enqueue(now, src, p);
    }

    fn make_packet(&mut self, now: SimTime, fi: usize) -> Packet {
        let id = self.ledger.generate();
        let f = &mut self.flows[fi];
        f.stats.generated += 1;
        let ip = Ipv4Header::new(addr_of(f.src), addr_of(f.dst), PROTO_UDP);
        let payload = f.source.msdu_bytes - LLC_SNAP_LEN - 20 - 8;
        Packet::new_udp(id, FlowId(fi as u32), now, ip, UdpHeader { src_port: f.src_port, dst_port: 9 }, payload)
    }

    fn dst_of(&self, p: &Packet) -> usize {
        self.flows[p.flow.idx()].dst
    }

    /// Put a packet on station `sta`'s transmit queue (drop-tail).
    fn enqueue(&mut self, now: SimTime, sta: usize, p: Packet) {
        let ra = if sta == 0 { self.dst_of(&p) } else { 0 };
        let q = &mut self.txq[sta];
        if q.q.len() >= q.cap {
            self.ledger.drop(p.id, DropReason::QueueFull);
            return;
        }
        q.q.push_back((p, ra));
        if self.bss.macs[sta].is_ready() {
            self.feed(now, sta);
        }
    }

    /// The MAC of `sta` can take a frame: give it the head of its queue, or
    /// a fresh packet from a saturated source.
    fn feed(&mut self, now: SimTime, sta: usize) {
        if !self.bss.macs[sta].is_ready() {
            return;
        }
        if let Some((p, ra)) = self.txq[sta].q.pop_front() {
            self.bss.give_msdu(now, sta, p, ra, &mut self.out);
            return;
        }
        let (list, cursor) = &mut self.saturated[sta];
        let active: Vec<usize> = list.iter().copied().filter(|&fi| self.flows[fi].source.active(now)).collect();
        if active.is_empty() {
            return;
        }
        *cursor = (*cursor + 1) % active.len();
        let fi = active[*cursor];
        let p = self.make_packet(now, fi);
        let ra = if sta == 0 { self.flows[fi].dst } else { 0 };
        self.bss.give_msdu(now, sta, p, ra, &mut self.out);
    }
}

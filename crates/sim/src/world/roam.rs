//! Roaming: stations that leave a weakening AP for a stronger one
//! (`[wlan.roaming]`, config/roaming.rs).
//!
//! IEEE 802.11 leaves the decision to roam to the station (802.11-2020
//! 11.1.4 scanning, 11.3.5.4 reassociation); this model follows the common
//! rule of signal threshold plus hysteresis:
//! - **Cadence.** A station with a mobility model checks its serving AP's
//!   signal every `check_interval_ms` (default 102.4 ms: one beacon
//!   interval of 100 TU, the period at which a station hears its AP's
//!   beacons). A station that stands still (no mobility model, or paused
//!   between two velocity changes) is not checked: it waits without an
//!   event until its model's next velocity change. Nothing happens per
//!   metre.
//! - **Signal.** The mean received power of an AP's beacon at the
//!   station's position at the check (the channel's link budget with no
//!   shadowing draw: a station averages RSSI over beacons, and averaging
//!   removes per-frame shadowing).
//! - **Decision.** If the serving AP's power is below `threshold_dbm` and
//!   the strongest other AP is at least `hysteresis_db` stronger, the
//!   station leaves. Deviation: the candidate is known at the check
//!   (background scanning or neighbour reports are not modelled as
//!   frames), so a check that finds no better AP costs nothing.
//! - **Hand-off.** The station leaves its cell at once (its interface is
//!   `DETACHED`: it is fed nothing, and the cells' gates fail every frame
//!   from or to it) and reassociates `scan_time_ms` later (default one
//!   beacon interval per channel for passive scanning, 20 ms per channel
//!   for active; authentication and the reassociation exchange are counted
//!   inside that time, not sent as frames). Deviation: an MSDU the
//!   station's MAC already held stays with that MAC in the old cell and is
//!   retried there until the retry limit discards it (a real station's
//!   channel switch would abandon it at once); its failed attempts occupy
//!   the old cell's air for those retries.
//! - **Frames at the old AP.** The old AP does not learn of the departure
//!   until the reassociation: until then it keeps sending to the station,
//!   and those frames fail to the retry limit (`retry_limit`). From the
//!   reassociation on, frames it still queues for the station are, when
//!   they reach the head of its queue, discarded (`DropReason::Handoff`,
//!   `queued = "drop"`, as the base station's interface queue in ns-2's
//!   Mobile IP set-up of paper 002) or sent on over the wired network to
//!   the new AP (`queued = "forward"`).
//! - **Wired side.** At the reassociation the new AP's layer-2 update
//!   (802.11F; a learning switch moves the station's address to the new
//!   port) takes effect at once on every wired node: `Topology::ap_of`
//!   changes, so every route to the station leads to the new AP. Packets
//!   already on their way to the old AP are routed on from there. Or
//!   (`reroute = "home_agent"`, Mobile IPv4 as in paper 002's ns-2 set-up,
//!   RFC 5944): every wired route to the station keeps leading to its
//!   first AP, the home agent, which from the reassociation on sends the
//!   station's packets on over the wired network to the AP it is with
//!   (the tunnel to the foreign agent); the station's own packets leave
//!   the foreign AP straight for their destination (triangular routing, no
//!   reverse tunnel). Deviations: the registration with the home agent
//!   takes no time (the binding changes at the reassociation), agent
//!   advertisements are not sent, and the tunnel adds no 20-byte outer IP
//!   header (1.6 us per packet at 100 Mbit/s).
//!
//! Structure: [`Roaming`] holds the hand-off state (the moving stations,
//! their timers, the hand-offs so far) and the home agent's tunnel map. The
//! nodes hold it (`Nodes::roam`): a hand-off changes a station's
//! association (`Topology::ap_of`, its interface's cell) and the cells'
//! presence table, and the home agent acts on a node's packet path. Its
//! methods decide and count; the nodes apply what they decide.
//!
//! Invariants: a station is in at most one cell; every packet queued or
//! held for a roaming station is delivered, forwarded, or dropped with a
//! typed reason (the ledger checks it at the end of the run); a packet id
//! is in the tunnel map from the home agent's send until the foreign AP
//! receives it.
use super::events::TimerOwner;
use super::kernel::Kernel;
use super::shape::General;
use crate::config::roaming::{QueuedAtOldAp, RoamingConfig};
use crate::config::Scenario;
use crate::topology::Topology;
use serde_json::{json, Value};
use std::collections::HashMap;
use wifitcp_core::ConfigError;
use wifitcp_core::{DropReason, PacketId, SimDur, SimTime};
use wifitcp_net::TimerKey;
use wifitcp_wifi::channel::{Position, Radio};
use wifitcp_wifi::mobility::Mobility;
use wifitcp_wire::Ipv4Addr;

/// One hand-off.
#[derive(Clone, Debug)]
struct Handoff {
    sta: usize,
    from: usize,
    to: usize,
    start: SimTime,
    /// The reassociation (`None` while scanning).
    end: Option<SimTime>,
    /// Frames the old AP still queued for the station after the
    /// reassociation: discarded, or forwarded to the new AP.
    dropped_at_old_ap: u64,
    forwarded: u64,
    /// MSDUs discarded at the retry limit while the station was away: by
    /// the station's own MAC, and by the old AP's MAC (which may include
    /// another station's frames discarded in that time).
    station_retry_drops: u64,
    old_ap_retry_drops: u64,
}

/// Per roaming-capable (moving) station.
struct Walker {
    model: Box<dyn Mobility>,
    timer: TimerKey,
    /// Hand-off in progress (index into `handoffs`).
    pending: Option<usize>,
    /// At the last check: its instant, the position, and the model's next
    /// velocity change after it.
    last: Option<(SimTime, Position, SimTime)>,
}

pub(super) struct Roaming {
    cfg: RoamingConfig,
    interval: SimDur,
    scan_time: SimDur,
    radio: Radio,
    tx_power_dbm: f64,
    /// Member ids of the APs, their positions and cells.
    aps: Vec<usize>,
    positions: Vec<Position>,
    cell_of_ap: Vec<usize>,
    walkers: Vec<Option<Walker>>,
    handoffs: Vec<Handoff>,
    /// Signal checks made.
    checks: u64,
    /// Packets in a home agent's tunnel: their inner destination, by id
    /// (`reroute = "home_agent"`).
    tunnel: HashMap<PacketId, Ipv4Addr>,
}

/// What a station's roaming timer did to its association.
pub(super) enum Step {
    /// Nothing changed.
    Stay,
    /// The station left its AP's cell and scans.
    Leave,
    /// The station reassociated with AP `ap`, in cell `cell`.
    Join { ap: usize, cell: usize },
}

impl Roaming {
    /// The roaming state of a scenario with `[wlan.roaming]`: a timer per
    /// moving station (`models`, from the members' starting `positions`),
    /// armed for a first check at time zero.
    pub(super) fn new(
        s: &Scenario,
        k: &mut Kernel,
        positions: Vec<Position>,
        models: Vec<Option<Box<dyn Mobility>>>,
    ) -> Result<Box<Roaming>, ConfigError> {
        let cfg = s.wlan.roaming.clone().expect("a scenario with roaming");
        let c = s.channel.as_ref().expect("validated: roaming needs a channel");
        let model = c.build(&|name| s.member_id(name))?;
        let radio = *model.radio().expect("validated: a power-based channel");
        let mut walkers = Vec::with_capacity(models.len());
        for (i, m) in models.into_iter().enumerate() {
            walkers.push(match m {
                Some(model) => {
                    let timer = k.new_timer(TimerOwner::Roam(i));
                    k.arm(General, timer, Some(SimTime::ZERO));
                    Some(Walker { model, timer, pending: None, last: None })
                }
                None => None,
            });
        }
        let aps = (0..s.wlan.aps as usize).map(|k| s.ap_member(k)).collect();
        Ok(Box::new(Roaming {
            interval: SimDur::from_secs_f64(cfg.check_interval_ms / 1e3),
            scan_time: SimDur::from_secs_f64(cfg.scan_time_s(s.cell_channels().len())),
            cfg,
            radio,
            tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
            aps,
            positions,
            cell_of_ap: s.cell_of_aps(),
            walkers,
            handoffs: Vec::new(),
            checks: 0,
            tunnel: HashMap::new(),
        }))
    }

    /// Mean beacon power (dBm) of AP `ap` at `p`.
    fn power(&self, ap: usize, p: Position) -> f64 {
        self.radio.budget.mean_rx_power_dbm(self.tx_power_dbm, self.positions[ap].distance(&p))
    }

    /// A station's check at `now` while associated with `serving`: the AP
    /// to leave for, if any, and when to check next (`None`: never, the
    /// station stands still for good).
    fn check(&mut self, now: SimTime, sta: usize, serving: usize) -> (Option<usize>, Option<SimTime>) {
        self.checks += 1;
        let w = self.walkers[sta].as_mut().expect("a walker");
        let p = w.model.position_at(now);
        let change = w.model.next_change(now);
        // Standing still since the last check, with no velocity change in
        // between (one at `now` itself may set it moving): it stands until
        // `change`.
        let standing = w.last.is_some_and(|(_, q, c)| q == p && c > now);
        w.last = Some((now, p, change));
        let next = if standing {
            (change != SimTime::NEVER).then_some(change.max(now + self.interval))
        } else {
            Some(now + self.interval)
        };
        let here = self.power(serving, p);
        if here >= self.cfg.threshold_dbm {
            return (None, next);
        }
        let best = self
            .aps
            .iter()
            .filter(|&&a| a != serving)
            .map(|&a| (a, self.power(a, p)))
            .fold(None, |b: Option<(usize, f64)>, x| if b.is_none_or(|b| x.1 > b.1) { Some(x) } else { b });
        match best {
            Some((a, pw)) if pw >= here + self.cfg.hysteresis_db => (Some(a), next),
            _ => (None, next),
        }
    }

    /// Station `sta`'s roaming timer, while associated with `serving`: the
    /// end of its hand-off (it joins the new AP's cell), or a check (it may
    /// leave). Re-arms the timer; the caller applies the step.
    pub(super) fn fires(&mut self, k: &mut Kernel, sta: usize, serving: usize) -> Step {
        let now = k.now();
        let w = self.walkers[sta].as_mut().expect("a walker");
        let timer = w.timer;
        if let Some(h) = w.pending.take() {
            // Reassociation: the station joins the new AP's cell, the wired
            // side learns its new port, its queue is served again.
            let to = self.handoffs[h].to;
            self.handoffs[h].end = Some(now);
            k.arm(General, timer, Some(now + self.interval));
            return Step::Join { ap: to, cell: self.cell_of_ap[to] };
        }
        let (target, next) = self.check(now, sta, serving);
        if let Some(to) = target {
            self.handoffs.push(Handoff {
                sta,
                from: serving,
                to,
                start: now,
                end: None,
                dropped_at_old_ap: 0,
                forwarded: 0,
                station_retry_drops: 0,
                old_ap_retry_drops: 0,
            });
            self.walkers[sta].as_mut().expect("a walker").pending = Some(self.handoffs.len() - 1);
            k.arm(General, timer, Some(now + self.scan_time));
            return Step::Leave;
        }
        k.arm(General, timer, next);
        Step::Stay
    }

    /// A MAC discarded an MSDU: count retry-limit discards of a station
    /// away on a hand-off, and of the AP it left, in that hand-off.
    #[inline(never)]
    pub(super) fn mac_dropped(&mut self, sta: usize, reason: DropReason) {
        if reason != DropReason::RetryLimit {
            return;
        }
        if let Some(Some(k)) = self.walkers.get(sta).and_then(|w| w.as_ref().map(|w| w.pending)) {
            self.handoffs[k].station_retry_drops += 1;
            return;
        }
        for w in self.walkers.iter().flatten() {
            if let Some(k) = w.pending {
                if self.handoffs[k].from == sta {
                    self.handoffs[k].old_ap_retry_drops += 1;
                    return;
                }
            }
        }
    }

    /// AP `ap` took from its queue a frame for station `dest`, which has
    /// reassociated elsewhere: count it in the hand-off; whether it is
    /// forwarded to the station's new AP (else dropped,
    /// `wlan.roaming.queued`).
    pub(super) fn left_behind(&mut self, ap: usize, dest: usize) -> bool {
        let forward = self.cfg.queued == QueuedAtOldAp::Forward;
        if let Some(h) = self.handoffs.iter_mut().rev().find(|h| h.sta == dest && h.from == ap) {
            if forward {
                h.forwarded += 1;
            } else {
                h.dropped_at_old_ap += 1;
            }
        }
        forward
    }

    /// The home agent sends packet `id` into the tunnel; `inner` is its
    /// destination.
    pub(super) fn tunnel_in(&mut self, id: PacketId, inner: Ipv4Addr) {
        self.tunnel.insert(id, inner);
    }

    /// Whether packet `id` is in the tunnel.
    #[inline]
    pub(super) fn in_tunnel(&self, id: PacketId) -> bool {
        !self.tunnel.is_empty() && self.tunnel.contains_key(&id)
    }

    /// Packet `id` leaves the tunnel at the foreign AP: its inner
    /// destination.
    pub(super) fn tunnel_out(&mut self, id: PacketId) -> Ipv4Addr {
        self.tunnel.remove(&id).expect("a tunnelled packet")
    }

    /// The `"handoffs"` part of the result.
    pub(super) fn report(&self, topo: &Topology) -> Value {
        let name = |i: usize| topo.name(i);
        let done: Vec<&Handoff> = self.handoffs.iter().filter(|h| h.end.is_some()).collect();
        let lat = |h: &Handoff| (h.end.expect("done") - h.start).as_secs_f64();
        let list: Vec<Value> = self
            .handoffs
            .iter()
            .map(|h| {
                json!({
                    "station": name(h.sta), "from": name(h.from), "to": name(h.to),
                    "start_s": h.start.as_secs_f64(),
                    "end_s": h.end.map(|t| t.as_secs_f64()),
                    "latency_s": h.end.map(|_| lat(h)),
                    "dropped_at_old_ap": h.dropped_at_old_ap,
                    "forwarded": h.forwarded,
                    "station_retry_drops": h.station_retry_drops,
                    "old_ap_retry_drops": h.old_ap_retry_drops,
                })
            })
            .collect();
        let lost: u64 =
            self.handoffs.iter().map(|h| h.dropped_at_old_ap + h.station_retry_drops + h.old_ap_retry_drops).sum();
        json!({
            "count": self.handoffs.len(),
            "completed": done.len(),
            "checks": self.checks,
            "mean_latency_s": if done.is_empty() { 0.0 } else { done.iter().map(|h| lat(h)).sum::<f64>() / done.len() as f64 },
            "frames_lost": lost,
            "frames_forwarded": self.handoffs.iter().map(|h| h.forwarded).sum::<u64>(),
            "list": list,
        })
    }
}

//! The cells' side of the loop: their outputs (wake-ups, transmission
//! ends, deliveries, drops), and the queue disciplines and saturated
//! sources that feed each MAC when it is ready; building the cells (one
//! `Bss` per channel) and the gate that keeps a cell's frames among the
//! members present in it.
use super::*;
use crate::config::Traffic;
use crate::macs::Member;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use wifitcp_wifi::channel::config::{NodeKeys, PowerControl, StaAntenna};
use wifitcp_wifi::channel::moving::MovingChannelErrors;
use wifitcp_wifi::mac::{AckPolicy, Dcf, DcfParams, Frame};
use wifitcp_wifi::medium::sense::propagation_delay_ns;
use wifitcp_wifi::medium::{NodeRadio, SenseMatrix};

use wifitcp_wifi::mobility::Mobility;

/// One channel's collision domain and its outputs not yet handled.
pub(super) struct Cell {
    pub(super) bss: CellBss,
    pub(super) out: Vec<BssOutput>,
}

/// A cell's medium, by the MACs it holds: a cell whose every member runs
/// a plain DCF (every a/b/g scenario without beacons, PCF or EDCA) is a
/// `Bss<Dcf>`, so the medium's calls into the MAC are resolved at compile
/// time and inlined; any other cell is a `Bss<AnyMac>` (one `match` on the
/// MAC kind per call). The choice is made once, when the cell is built;
/// both behave identically (`AnyMac` adds no behaviour), the `Bss<Dcf>`
/// only costs fewer instructions per event.
pub(super) enum CellBss {
    Dcf(Bss<Dcf>),
    Any(Bss<AnyMac>),
}

/// Evaluate `$body` with `$b` bound to the cell's `Bss`, whichever its MAC
/// type (one branch per call).
macro_rules! with_bss {
    ($cell:expr, $b:ident => $body:expr) => {
        match $cell {
            $crate::world::wlan::CellBss::Dcf($b) => $body,
            $crate::world::wlan::CellBss::Any($b) => $body,
        }
    };
}
pub(super) use with_bss;

impl CellBss {
    /// The cell's medium as built, a `Bss<Dcf>` if every MAC is a plain DCF.
    fn specialise(bss: Bss<AnyMac>) -> CellBss {
        if bss.macs.iter().all(|m| matches!(m, AnyMac::Dcf(_))) {
            CellBss::Dcf(bss.map_macs(|m| match m {
                AnyMac::Dcf(d) => d,
                _ => unreachable!("checked: every MAC is a DCF"),
            }))
        } else {
            CellBss::Any(bss)
        }
    }

    /// The cell's medium with its MACs as `AnyMac` (for the metrics).
    pub(super) fn into_any(self) -> Bss<AnyMac> {
        match self {
            CellBss::Dcf(b) => b.map_macs(AnyMac::Dcf),
            CellBss::Any(b) => b,
        }
    }

    /// Number of members (a MAC each).
    pub(super) fn len(&self) -> usize {
        with_bss!(self, b => b.len())
    }
}

/// Which cell each WLAN member is in (`u32::MAX`: none, while it scans),
/// shared by the world (which moves members) and the cells' gates.
pub(super) type Presence = Arc<[AtomicU32]>;

/// `Presence` value of a member in no cell.
pub(super) const ABSENT: u32 = u32::MAX;

/// A cell's error model behind a gate: a frame whose transmitter or
/// receiver is not in this cell fails (success probability 0: a radio
/// tuned to another channel, or scanning, neither sends on this channel
/// nor receives from it). Frames among present members get the wrapped
/// model's answer unchanged.
pub(super) struct CellGate {
    pub(super) inner: Box<dyn FrameErrorModel>,
    pub(super) cell: u32,
    pub(super) presence: Presence,
    /// The wrapped model's `may_hit_control_frames`.
    pub(super) inner_hits_control: bool,
}

impl CellGate {
    /// Whether both ends of a frame are in this cell.
    fn present(&self, ta: MacAddr, ra: MacAddr) -> bool {
        let here = |a: MacAddr| self.presence.get(a.0 as usize).is_none_or(|c| c.load(Ordering::Relaxed) == self.cell);
        here(ta) && here(ra)
    }
}

impl FrameErrorModel for CellGate {
    fn success_prob(&mut self, now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        if !self.present(ta, ra) {
            return 0.0;
        }
        if !self.inner_hits_control && !f.kind.carries_msdus() {
            return 1.0; // what the medium assumes of a model that spares control frames
        }
        self.inner.success_prob(now, ta, ra, f, rng)
    }
    fn ppdu_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        // (1, 0) when absent: no header draw, every MPDU judged lost as before
        if !self.present(ta, ra) {
            return (1.0, 0.0);
        }
        if !self.inner_hits_control && !f.kind.carries_msdus() {
            return (1.0, 1.0);
        }
        self.inner.ppdu_success_parts(now, ta, ra, f, rng)
    }
    fn success_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        if !self.present(ta, ra) {
            return 0.0;
        }
        self.inner.success_prob_with_interference(now, ta, ra, f, chunks, rng)
    }
    fn mean_rx_dbm(&self, ta: MacAddr, ra: MacAddr) -> Option<f64> {
        self.inner.mean_rx_dbm(ta, ra)
    }
    fn may_hit_control_frames(&self) -> bool {
        self.inner_hits_control
    }
}

impl World {
    /// Handle every output of the cells, in emission order within each
    /// cell, including the outputs emitted while handling earlier ones.
    /// With one cell (the usual case) this is one pass by index over its
    /// outputs; with several, cells are drained in index order until none
    /// has outputs left.
    #[inline(always)]
    pub(super) fn drain_outputs(&mut self) {
        if self.more_cells.is_empty() {
            self.drain_cell(0);
            return;
        }
        loop {
            let mut any = false;
            for c in 0..=self.more_cells.len() {
                if !self.cell(c).out.is_empty() {
                    self.drain_cell(c);
                    any = true;
                }
            }
            if !any {
                return;
            }
        }
    }

    /// Handle every output of cell `c`. The `Bss` only appends to its
    /// `out`, so one pass by index sees them all in emission order (an
    /// output emitted while handling output k comes after every output
    /// emitted before it); the vector is cleared once at the end, so no
    /// output is moved. Always inlined into the run loop (once per event;
    /// profile-guided builds otherwise keep it out of line).
    #[inline(always)]
    fn drain_cell(&mut self, c: usize) {
        let mut i = 0;
        while i < self.cell(c).out.len() {
            self.handle_output(c, i);
            i += 1;
        }
        self.cell_mut(c).out.clear();
    }

    /// Handle output `i` of cell `c` (its fields are copied out first, a
    /// delivery's packet handle moved out, leaving a wake-up at `NEVER` that
    /// nothing reads: handling it may append to `out`).
    #[inline(always)]
    pub(super) fn handle_output(&mut self, c: usize, i: usize) {
        let now = self.q.now();
        let cell = c as u16;
        match self.cell(c).out[i] {
            BssOutput::Wake { at } => {
                self.q.push(at, Ev::BssWake { cell }.code());
            }
            BssOutput::TxEnd { id, at } => {
                self.q.push(at, Ev::TxEnd { id, cell }.code());
            }
            BssOutput::Deliver { sta, .. } => {
                let BssOutput::Deliver { pkt, .. } =
                    std::mem::replace(&mut self.cell_mut(c).out[i], BssOutput::Wake { at: SimTime::NEVER })
                else {
                    unreachable!()
                };
                // A UDP datagram for this node, which has no agents, is only
                // counted; anything else is received (forwarded, or handed
                // to TCP).
                if let Some(t) = &self.trace {
                    t.packet(now, sta, "wlan", "receive", &pkt, None);
                }
                // (Echo requests and replies take the full path: they are answered or timed.)
                let plain_udp =
                    matches!(&pkt.l4, Transport::Udp(h) if h.dst_port != ECHO_PORT && h.src_port != ECHO_PORT);
                if plain_udp && self.topo.node_of(pkt.ip.dst) == Some(sta) && !self.hooked[sta] {
                    udp_arrived(&mut self.ledger, &mut self.flows, self.warmup, &pkt, now);
                } else {
                    self.receive(now, sta, std::rc::Rc::unwrap_or_clone(pkt));
                }
            }
            BssOutput::Dropped { sta, id, reason } => {
                if let Some(t) = &self.trace {
                    t.row(now, sta, "wlan", "drop", id.0, None, None, Some(reason));
                }
                if let Some(r) = self.roam.as_mut() {
                    r.mac_dropped(now, sta, reason);
                }
                self.ledger.drop(id, reason)
            }
            BssOutput::DiscardedAfterReceipt { .. } => self.ledger.late_drops += 1,
            // (the MAC of an absent member is never fed)
            BssOutput::Ready { sta } if self.presence.is_none() || self.topo.cell_of(sta) == c => self.feed(now, sta),
            BssOutput::Ready { .. } => {}
            BssOutput::Airtime { sta, peer, airtime } => {
                // Airtime fairness at the AP (mac80211 style): charge the
                // station for frames sent to it and received from it.
                if self.topo.is_ap(sta) {
                    self.wq[sta].on_airtime(peer as u32, airtime);
                } else if self.topo.is_ap(peer) {
                    self.wq[peer].on_airtime(sta as u32, airtime);
                }
            }
        }
    }

    /// The MAC of `sta` can take a frame: give it the next packet of its
    /// queue discipline (for the receiver and traffic identifier it asks
    /// for, if it names them), or a fresh packet from a saturated source.
    pub(super) fn feed(&mut self, now: SimTime, sta: usize) {
        // (one cell and no roaming: every member is in cell 0)
        // (roaming implies a presence table: one test for the plain case)
        let gated = self.presence.is_some();
        let c = if !gated { 0 } else { self.topo.cell_of(sta) };
        if c == DETACHED {
            return; // scanning: the queue waits for the new AP
        }
        let Some(demand) = with_bss!(&self.cell(c).bss, b => b.demand(sta)) else { return };
        let item = if gated && self.roam.is_some() {
            self.dequeue_roaming(now, sta, demand)
        } else {
            self.dequeue_wlan(now, sta, demand)
        };
        self.flush_drops(sta);
        if let Some(it) = item {
            if let Some(t) = &self.trace {
                t.packet(now, sta, "wlan", "dequeue", &it.pkt, None);
            }
            let cell = self.cell_mut(c);
            with_bss!(&mut cell.bss, b => b.give_msdu(now, sta, it.pkt, it.dest as usize, &mut cell.out));
            self.qdisc_timer(sta);
            return;
        }
        // (`ready_len` has no side effect: test the cheap condition first.)
        if self.saturated[sta].0.is_empty() || self.wq[sta].ready_len() > 0 {
            return;
        }
        // Round robin over the station's active saturated flows (no
        // allocation: this runs once per saturated packet).
        let flows = &self.flows;
        let (list, cursor) = &mut self.saturated[sta];
        let active = |&(fi, _): &(usize, Hop)| flows[fi].udp_active(now);
        let (fi, hop) = if let [only] = list[..] {
            // The usual single flow: the general case below with n_active = 1.
            if !active(&only) {
                return;
            }
            *cursor = 0;
            only
        } else {
            let n_active = list.iter().filter(|f| active(f)).count();
            if n_active == 0 {
                return;
            }
            *cursor = (*cursor + 1) % n_active;
            list.iter().copied().filter(|f| active(f)).nth(*cursor).expect("counted")
        };
        let FlowKind::Udp { source, .. } = &mut self.flows[fi].kind else { unreachable!("a saturated UDP flow") };
        let msdu_bytes = source.fire(now).msdu_bytes;
        let p = self.make_udp(now, fi, msdu_bytes);
        if let Some(t) = &self.trace {
            t.packet(now, sta, "wlan", "dequeue", &p, None);
        }
        match hop {
            Hop::Wlan { ra } => {
                let ra = if gated && self.roam.is_some() {
                    if self.topo.is_station(sta) {
                        self.topo.ap_of[sta] // (its AP since the last hand-off)
                    } else if self.left_ap(sta, ra) {
                        // an AP's source for a station that left it: over the wire
                        return self.send_from(now, sta, p);
                    } else {
                        ra
                    }
                } else {
                    ra
                };
                let cell = self.cell_mut(c);
                with_bss!(&mut cell.bss, b => b.give_msdu(now, sta, p, ra, &mut cell.out))
            }
            _ => self.send_from(now, sta, p),
        }
    }
}

/// The cells of a scenario, one per channel (`Scenario::cell_channels`),
/// each with a MAC for every WLAN member; and, with several cells or
/// roaming, the presence table their gates share. Cell 0 draws from the
/// streams a single-cell scenario always used; cell k > 0 from the same
/// names suffixed with "/ch<channel>".
impl World {
    /// [`World::dequeue_wlan`] with roaming: frames an AP still queues for
    /// a station that has left it are dropped or forwarded
    /// (`left_behind`), and a station's frames queued before a hand-off go
    /// to its new AP.
    #[inline(never)]
    fn dequeue_roaming(&mut self, now: SimTime, sta: usize, demand: Demand) -> Option<Queued> {
        loop {
            let mut it = self.dequeue_wlan(now, sta, demand)?;
            if self.left_ap(sta, it.dest as usize) {
                self.left_behind(now, sta, it);
                continue;
            }
            if self.topo.is_station(sta) {
                it.dest = self.topo.ap_of[sta] as u32;
            }
            return Some(it);
        }
    }

    /// The next packet of `sta`'s queue discipline for what its MAC asks.
    #[inline(always)]
    fn dequeue_wlan(&mut self, now: SimTime, sta: usize, demand: Demand) -> Option<Queued> {
        if demand == Demand::ANY {
            self.wq[sta].dequeue(now, &mut self.dropped)
        } else {
            self.wq[sta].dequeue_for(now, demand.ra.map(|a| a.0), demand.tid, &mut self.dropped)
        }
    }
}

pub(super) fn build_cells(s: &Scenario, seed: u64, topo: &Topology) -> Result<(Vec<Cell>, Option<Presence>), String> {
    let chans = s.cell_channels();
    let gated = chans.len() > 1 || s.wlan.roaming.is_some();
    let presence: Option<Presence> =
        gated.then(|| (0..s.wlan_members()).map(|i| AtomicU32::new(topo.cell_of(i) as u32)).collect::<Vec<_>>().into());
    let mut cells = Vec::new();
    for (k, ch) in chans.iter().enumerate() {
        let suffix = if k == 0 { String::new() } else { format!("/ch{ch}") };
        let gate = presence.as_ref().map(|p| (k as u32, p.clone()));
        let bss = build_bss(s, seed, k, &suffix, gate)?;
        cells.push(Cell { bss: CellBss::specialise(bss), out: Vec::new() });
    }
    Ok((cells, presence))
}

/// One cell's `Bss`: a MAC for every WLAN member, the channel's error
/// model; random streams named with `suffix` after their usual names.
fn build_bss(
    s: &Scenario,
    seed: u64,
    cell: usize,
    suffix: &str,
    gate: Option<(u32, Presence)>,
) -> Result<Bss<AnyMac>, String> {
    let timing = s.timing()?;
    let n = s.wlan_members();
    let params = s.mac.dcf_params(timing);
    let rates: Vec<_> = s.phy.standard.rates().into_iter().map(|(r, _)| r).collect();
    let ap_of = s.ap_of_members();
    // An AP sends beacons (and polls) only in its own cell; its MAC in the
    // other cells is never fed (roaming's gate).
    let cell_of_aps = s.cell_of_aps();
    let build = s.mac.kind.mac().build;
    let macs = (0..n)
        .map(|i| {
            // `mac.no_ack_nodes`: this member's data frames carry No Ack
            let own;
            let params = if s.no_ack_member(i) {
                own = DcfParams { ack_policy: AckPolicy::NoAck, ..params.clone() };
                &own
            } else {
                &params
            };
            build(&Member {
                s,
                seed,
                i,
                ap_of: &ap_of,
                elsewhere: ap_of[i] == i && cell_of_aps[i] != cell,
                suffix,
                params,
                rates: &rates,
            })
        })
        .collect();
    let mut sense = None;
    let errors: Box<dyn FrameErrorModel> = match &s.channel {
        None => {
            let ap_of = s.ap_of_members();
            Box::new(FixedPer {
                uplink: vec![s.wlan.per_uplink; n],
                downlink: vec![s.wlan.per_downlink; n],
                is_ap: (0..n).map(|i| ap_of[i] == i).collect(),
            })
        }
        Some(c) => {
            let model = c.build(&|name| s.member_id(name)).map_err(|e| e.to_string())?;
            let mut rng = RngStream::derive(seed, "channel/shadowing");
            let positions = station_positions(s);
            let preamble = match s.phy.preamble {
                wifitcp_wifi::phy::Preamble::Long => Preamble::Long,
                wifitcp_wifi::phy::Preamble::Short => Preamble::Short,
            };
            let mut errors = ChannelErrors {
                channel: Channel::new(model, &mut rng),
                positions,
                tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
                preamble,
                nodes: Vec::new(),
                // 802.11n: data frames are HT PPDUs of `phy`'s vector
                ht: params.timing.ht,
            };
            if let Some(keys) = c.node_keys().map_err(|e| e.to_string())? {
                if !keys.is_plain() {
                    errors.nodes = node_radios(s, &keys, &errors)?;
                }
            }
            // Who hears whom and the propagation delays, from the starting
            // positions: moving stations keep the shared view (their
            // carrier sense is not re-derived as they move).
            if s.wlan.mobility.is_empty() {
                sense = cell_view(&errors, n);
            }
            if s.wlan.mobility.is_empty() {
                Box::new(errors)
            } else {
                Box::new(moving_errors(s, seed, errors)?)
            }
        }
    };
    let errors = match gate {
        None => errors,
        Some((cell, presence)) => {
            let inner_hits_control = errors.may_hit_control_frames();
            Box::new(CellGate { inner: errors, cell, presence, inner_hits_control })
        }
    };
    let mut bss = Bss::new(macs, errors, RngStream::derive(seed, &format!("medium/errors{suffix}")));
    bss.set_control_rng(RngStream::derive(seed, &format!("medium/control-errors{suffix}")));
    bss.set_grouping(s.mac.group_bystanders);
    if let Some(m) = sense {
        bss.set_sense(m);
    }
    Ok(bss)
}

/// One-way propagation delay (ns) up to which a cell in which everyone
/// hears everyone keeps the shared view, whose delay is zero: half of
/// aAirPropagationTime at coverage class 0 (1 us, 802.11-2020 Table 9-85;
/// the round trip between the most distant stations that the slot
/// absorbs), i.e. stations at most 150 m apart. Within it stations that
/// pick the same slot collide and others do not, as with zero delay, and
/// an exchange is longer by at most 1 us of hundreds.
pub(super) const SHARED_VIEW_MAX_DELAY_NS: u64 = 500;

/// The cell's per-station view, if it needs one: when some member does
/// not hear another (carrier sense at `channel.cs_threshold_dbm`), or
/// when two members are further apart than the shared view's zero delay
/// allows (`SHARED_VIEW_MAX_DELAY_NS`). Delays are every pair's distance
/// over the speed of light (`propagation_delay_ns`); the per-station view
/// applies them to every pair, however short.
fn cell_view(e: &ChannelErrors, n: usize) -> Option<SenseMatrix> {
    let cs = e.cs_threshold_dbm();
    let m = sense_matrix(e, n, cs.unwrap_or(f64::NEG_INFINITY));
    let p = &e.positions;
    let m = m.with_delays(|a, b| propagation_delay_ns(p[a].distance(&p[b])));
    (!m.all_hear() || m.max_delay_ns() > SHARED_VIEW_MAX_DELAY_NS).then_some(m)
}

/// The carrier-sense matrix of the cell: member `t` senses member `s` iff
/// the mean power of `s`'s frames at `t` is at least `cs_dbm`.
fn sense_matrix(e: &ChannelErrors, n: usize, cs_dbm: f64) -> SenseMatrix {
    SenseMatrix::from_rx_dbm(n, cs_dbm, |a, b| {
        // (a channel without a power model: every frame at 0 dBm, heard,
        // no capture)
        e.mean_rx_dbm(MacAddr(a as u32), MacAddr(b as u32)).unwrap_or(0.0)
    })
}

/// Per-member transmit power and antenna gains (`channel.ap_tx_power_dbm`,
/// `ap_antenna_gain_dbi`, `sta_antenna_gain_dbi`, `sta_antenna`), and with
/// `power_control = "game"` each station's power from the power game's
/// equilibrium (`wifitcp_wifi::channel::power`) on the cell's gains.
fn node_radios(s: &Scenario, k: &NodeKeys, e: &ChannelErrors) -> Result<Vec<NodeRadio>, String> {
    let n = s.wlan_members();
    let ap_of = s.ap_of_members();
    let mut nodes: Vec<NodeRadio> = (0..n)
        .map(|i| {
            let is_ap = ap_of[i] == i;
            let (to_ap, to_sta) = if is_ap {
                (k.ap_antenna_gain_dbi, k.ap_antenna_gain_dbi)
            } else {
                match k.sta_antenna {
                    StaAntenna::Omni => (k.sta_antenna_gain_dbi, k.sta_antenna_gain_dbi),
                    StaAntenna::TowardAp => (k.sta_antenna_gain_dbi, 0.0),
                }
            };
            let tx_power_dbm = if is_ap { k.ap_tx_power_dbm } else { k.tx_power_dbm };
            NodeRadio { tx_power_dbm, gain_to_ap_dbi: to_ap, gain_to_sta_dbi: to_sta, is_ap }
        })
        .collect();
    if k.power_control == PowerControl::Game {
        let with = ChannelErrors {
            channel: e.channel.clone(),
            positions: e.positions.clone(),
            tx_power_dbm: e.tx_power_dbm,
            preamble: e.preamble,
            nodes: nodes.clone(),
            ht: e.ht,
        };
        let stas: Vec<usize> = (0..n).filter(|&i| ap_of[i] != i).collect();
        let mw = |a: usize, b: usize| {
            10f64.powf(with.mean_rx_dbm(MacAddr(a as u32), MacAddr(b as u32)).unwrap_or(0.0) / 10.0)
        };
        // Linear gain (W/W) of station j's frames at the AP of station i.
        let gain = |j: usize, i: usize| mw(stas[j], ap_of[stas[i]]) / mw_of_dbm(nodes[stas[j]].tx_power_dbm);
        let cs = with.cs_threshold_dbm();
        let hears = |a: usize, b: usize| {
            cs.is_none_or(|c| with.mean_rx_dbm(MacAddr(a as u32), MacAddr(b as u32)).unwrap_or(f64::INFINITY) >= c)
        };
        let interferes = |j: usize, i: usize| !hears(stas[i], stas[j]);
        let radio = with.channel.model().radio().expect("a power model");
        let n0_w = mw_of_dbm(radio.noise_dbm(wifitcp_wifi::channel::Mode::Ofdm6)) / 1e3;
        let caps: Vec<f64> =
            stas.iter().map(|&i| k.power_max_w.unwrap_or(mw_of_dbm(nodes[i].tx_power_dbm) / 1e3)).collect();
        let p = wifitcp_wifi::channel::power::nash(stas.len(), gain, interferes, n0_w, k.power_cost_per_w, &caps)
            .map_err(|r| format!("channel.power_control: {r}"))?;
        for (j, &i) in stas.iter().enumerate() {
            // A station the game silences keeps -100 dBm (0.1 pW): it
            // still exists on the air, and nothing it sends is received.
            nodes[i].tx_power_dbm = if p[j] > 0.0 { 10.0 * (p[j] * 1e3).log10() } else { -100.0 };
        }
    }
    Ok(nodes)
}

fn mw_of_dbm(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// The channel with `[[wlan.mobility]]`: station i's model starts at its
/// configured position; random draws come from `mobility/sta<i>`.
fn moving_errors(s: &Scenario, seed: u64, errors: ChannelErrors) -> Result<MovingChannelErrors, String> {
    let models = mobility_models(s, seed, &errors.positions)?;
    Ok(MovingChannelErrors::new(errors, models))
}

/// The mobility model of every WLAN member (`None`: it stands still),
/// from its starting position. Every call builds the same trajectories
/// (each model draws only from its own stream, `mobility/<name>`, and its
/// positions do not depend on when they are asked for), so every cell and
/// the roaming checks see a station at one place.
pub(super) fn mobility_models(
    s: &Scenario,
    seed: u64,
    positions: &[Position],
) -> Result<Vec<Option<Box<dyn Mobility>>>, String> {
    let n = s.wlan.stations;
    let ap_of = s.ap_of_members();
    let mut models: Vec<Option<Box<dyn Mobility>>> = (0..s.wlan_members()).map(|_| None).collect();
    for (i, m) in s.wlan.mobility.iter().enumerate() {
        for k in Traffic::stations_of(&m.stations, n, &format!("wlan.mobility[{i}]"))? {
            let member = k as usize + 1;
            let rng = RngStream::derive(seed, &format!("mobility/{}", s.member_name(member)));
            let (start, ap) = (positions[member], positions[ap_of[member]]);
            models[member] = Some(m.build(start, ap, s.scenario.duration_s, rng));
        }
    }
    Ok(models)
}

/// Positions of the BSS members: APs at `wlan.ap_positions` (default AP k
/// at (20 k, 0)); stations at `wlan.positions`, or evenly on a circle of
/// radius `wlan.distance_m` around their AP (1 m if neither is given).
pub(super) fn station_positions(s: &Scenario) -> Vec<Position> {
    let n = s.wlan.stations as usize;
    let ap_pos = |k: usize| match &s.wlan.ap_positions {
        Some(p) => Position::new(p[k][0], p[k][1], 0.0),
        None => Position::new(20.0 * k as f64, 0.0, 0.0),
    };
    let ap_of = s.ap_of_members();
    let mut v = vec![Position::new(0.0, 0.0, 0.0); s.wlan_members()];
    for k in 0..s.wlan.aps as usize {
        v[s.ap_member(k)] = ap_pos(k);
    }
    for i in 1..=n {
        v[i] = match &s.wlan.positions {
            Some(p) => Position::new(p[i - 1][0], p[i - 1][1], 0.0),
            None => {
                let r = s.wlan.distance_m.unwrap_or(1.0);
                let a = 2.0 * std::f64::consts::PI * (i - 1) as f64 / n as f64;
                let c = v[ap_of[i]];
                Position::new(c.x + r * a.cos(), c.y + r * a.sin(), 0.0)
            }
        };
    }
    v
}

//! The BSS's side of the loop: its outputs (wake-ups, transmission ends,
//! deliveries, drops), and the queue disciplines and saturated sources that
//! feed each MAC when it is ready.
use super::*;
use crate::config::Traffic;
use wifitcp_wifi::channel::moving::MovingChannelErrors;
use wifitcp_wifi::mobility::Mobility;

impl World {
    /// Handle every output of the BSS, in emission order, including the
    /// outputs emitted while handling earlier ones. The `Bss` only appends
    /// to `out`, so one pass by index sees them all in that order (an
    /// output emitted while handling output k comes after every output
    /// emitted before it); the vector is cleared once at the end, so no
    /// output is moved. Always inlined into the run loop (once per event;
    /// profile-guided builds otherwise keep it out of line).
    #[inline(always)]
    pub(super) fn drain_outputs(&mut self) {
        let mut i = 0;
        while i < self.out.len() {
            self.handle_output(i);
            i += 1;
        }
        self.out.clear();
    }

    /// Handle output `i` of `out` (its fields are copied out first, a
    /// delivery's packet handle moved out, leaving a wake-up at `NEVER` that
    /// nothing reads: handling it may append to `out`).
    pub(super) fn handle_output(&mut self, i: usize) {
        let now = self.q.now();
        match self.out[i] {
            BssOutput::Wake { at } => {
                self.q.push(at, Ev::BssWake.code());
            }
            BssOutput::TxEnd { id, at } => {
                self.q.push(at, Ev::TxEnd { id }.code());
            }
            BssOutput::Deliver { sta, .. } => {
                let BssOutput::Deliver { pkt, .. } =
                    std::mem::replace(&mut self.out[i], BssOutput::Wake { at: SimTime::NEVER })
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
                    self.receive(now, sta, std::sync::Arc::unwrap_or_clone(pkt));
                }
            }
            BssOutput::Dropped { sta, id, reason } => {
                if let Some(t) = &self.trace {
                    t.row(now, sta, "wlan", "drop", id.0, None, None, Some(reason));
                }
                self.ledger.drop(id, reason)
            }
            BssOutput::DiscardedAfterReceipt { .. } => self.ledger.late_drops += 1,
            BssOutput::Ready { sta } => self.feed(now, sta),
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
        let Some(demand) = self.bss.demand(sta) else { return };
        let item = if demand == Demand::ANY {
            self.wq[sta].dequeue(now, &mut self.dropped)
        } else {
            self.wq[sta].dequeue_for(now, demand.ra.map(|a| a.0), demand.tid, &mut self.dropped)
        };
        self.flush_drops(sta);
        if let Some(it) = item {
            if let Some(t) = &self.trace {
                t.packet(now, sta, "wlan", "dequeue", &it.pkt, None);
            }
            self.bss.give_msdu(now, sta, it.pkt, it.dest as usize, &mut self.out);
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
            Hop::Wlan { ra } => self.bss.give_msdu(now, sta, p, ra, &mut self.out),
            _ => self.send_from(now, sta, p),
        }
    }
}

pub(super) fn build_bss(s: &Scenario, seed: u64) -> Result<Bss<AnyMac>, String> {
    let timing = s.timing()?;
    let n = s.wlan_members();
    let params = DcfParams {
        cw_min: s.mac.cw_min.unwrap_or(timing.cw_min_default),
        cw_max: s.mac.cw_max.unwrap_or(timing.cw_max_default),
        short_retry_limit: s.mac.short_retry_limit,
        long_retry_limit: s.mac.long_retry_limit,
        rts_threshold: s.mac.rts_threshold_bytes,
        busy_slot_counts: s.mac.backoff_rule == crate::config::BackoffRule::BusySlotCounts,
        eifs_after_timeout: s.mac.collision_restart == crate::config::CollisionRestart::Eifs,
        backoff_on_idle_access: s.mac.idle_access == crate::config::IdleAccess::Backoff,
        ack_policy: match s.mac.ack_policy {
            crate::config::AckPolicyConfig::Normal => AckPolicy::Normal,
            crate::config::AckPolicyConfig::NoAck => AckPolicy::NoAck,
        },
        timing,
    };
    let rates: Vec<_> = s.phy.standard.rates().into_iter().map(|(r, _)| r).collect();
    let macs = (0..n)
        .map(|i| {
            let name = s.member_name(i);
            let mut mac = Dcf::new(MacAddr(i as u32), params.clone(), RngStream::derive(seed, &format!("mac/{name}")));
            if !s.phy.rate_control.is_fixed() {
                // every member adapts its rate per receiver (`phy.rate_control`)
                let rng = RngStream::derive(seed, &format!("rate/{name}"));
                let t = &params.timing;
                mac.set_rate_control(wifitcp_wifi::rate::build(s.phy.rate_control, t.data_rate, &rates, t, rng));
            }
            match s.mac.kind {
                crate::config::MacKind::Dcf => AnyMac::from(mac),
            }
        })
        .collect();
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
            let errors = ChannelErrors {
                channel: Channel::new(model, &mut rng),
                positions,
                tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
                preamble,
            };
            if s.wlan.mobility.is_empty() {
                Box::new(errors)
            } else {
                Box::new(moving_errors(s, seed, errors)?)
            }
        }
    };
    let mut bss = Bss::new(macs, errors, RngStream::derive(seed, "medium/errors"));
    bss.set_control_rng(RngStream::derive(seed, "medium/control-errors"));
    bss.set_grouping(s.mac.group_bystanders);
    Ok(bss)
}

/// The channel with `[[wlan.mobility]]`: station i's model starts at its
/// configured position; random draws come from `mobility/sta<i>`.
fn moving_errors(s: &Scenario, seed: u64, errors: ChannelErrors) -> Result<MovingChannelErrors, String> {
    let n = s.wlan.stations;
    let ap_of = s.ap_of_members();
    let mut models: Vec<Option<Box<dyn Mobility>>> = (0..s.wlan_members()).map(|_| None).collect();
    for (i, m) in s.wlan.mobility.iter().enumerate() {
        for k in Traffic::stations_of(&m.stations, n, &format!("wlan.mobility[{i}]"))? {
            let member = k as usize + 1;
            let rng = RngStream::derive(seed, &format!("mobility/{}", s.member_name(member)));
            let (start, ap) = (errors.positions[member], errors.positions[ap_of[member]]);
            models[member] = Some(m.build(start, ap, s.scenario.duration_s, rng));
        }
    }
    Ok(MovingChannelErrors::new(errors, models))
}

/// Positions of the BSS members: APs at `wlan.ap_positions` (default AP k
/// at (20 k, 0)); stations at `wlan.positions`, or evenly on a circle of
/// radius `wlan.distance_m` around their AP (1 m if neither is given).
fn station_positions(s: &Scenario) -> Vec<Position> {
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

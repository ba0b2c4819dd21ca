//! Flows: building them from the scenario's traffic, firing their sources,
//! TCP endpoints' transmissions and timers, completion and sampling.
use super::*;

/// The echo service's port (RFC 862).
pub(super) const ECHO_PORT: u16 = 7;

impl World {
    pub(super) fn add_flows(&mut self, s: &Scenario, seed: u64) -> Result<(), String> {
        for (ti, tr) in s.traffic.iter().enumerate() {
            let path = format!("traffic[{ti}]");
            let list = tr.station_list(s.wlan.stations, &path)?;
            let peers = tr.peers(list.len(), &path)?;
            for (k, st) in list.into_iter().enumerate() {
                let peer = self.topo.nodes.iter().position(|x| x.name == peers[k]).expect("validated peer");
                let sta = st as usize + 1;
                let (src, dst) = match tr.direction {
                    Direction::Uplink => (sta, peer),
                    Direction::Downlink => (peer, sta),
                };
                let fi = self.flows.len();
                // A flow whose name an earlier flow has (a station listed
                // again) is "<name>#<n>", its n-th instance: names, and the
                // RNG streams derived from them, are the flow's own.
                let mut name = format!("{}/{}", tr.name, self.topo.nodes[sta].name);
                let again = format!("{name}#");
                let same =
                    self.flows.iter().filter(|f| f.stats.name == name || f.stats.name.starts_with(&again)).count();
                if same > 0 {
                    name = format!("{name}#{}", same + 1);
                }
                let start = SimTime::from_secs_f64(tr.start_s + k as f64 * tr.start_stagger_s);
                let stop = tr.stop_s.map(SimTime::from_secs_f64).unwrap_or(self.end).min(self.end);
                let mut first = start;
                let kind = match tr.kind {
                    TrafficKind::Udp => {
                        let mut source = crate::apps::build(tr, RngStream::derive(seed, &format!("traffic/{name}")))
                            .map_err(|e| format!("{path}.{e}"))?;
                        if source.saturated() && src < self.cell0.bss.len() {
                            self.saturated[src].0.push((fi, self.topo.next_hop(src, dst)));
                        }
                        first = source.start(start);
                        FlowKind::Udp { source, start, stop, src_port: 10_000 + fi as u16 }
                    }
                    TrafficKind::Tcp => {
                        let t = tr.tcp.clone().unwrap_or_default().over(&s.tcp);
                        let cfg = wifitcp_tcp::scenario::build(&t)?;
                        let (client, server) = (sta, peer);
                        let cport = 20_000 + fi as u16;
                        let sport = 5_000 + fi as u16;
                        let mut rng = RngStream::derive(seed, &format!("tcp/{name}"));
                        let ce = self.eps.len();
                        self.eps.push(Endpoint::client(
                            client,
                            server,
                            fi,
                            cfg.clone(),
                            wifitcp_tcp::scenario::controller(&t),
                            cport,
                            sport,
                            &mut rng,
                        ));
                        let se = self.eps.len();
                        self.eps.push(Endpoint::server(
                            server,
                            client,
                            fi,
                            cfg,
                            wifitcp_tcp::scenario::controller(&t),
                            sport,
                            &mut rng,
                        ));
                        self.topo.nodes[client].ports.insert(cport, ce);
                        self.topo.nodes[server].ports.insert(sport, se);
                        let (sender, receiver) = if tr.direction == Direction::Uplink { (ce, se) } else { (se, ce) };
                        FlowKind::Tcp { client: ce, sender, receiver, bytes: tr.bytes, start, stop, completed: None }
                    }
                };
                let kind_name = if tr.kind == TrafficKind::Udp { "udp" } else { "tcp" };
                let mut stats = FlowStats::new(
                    name,
                    kind_name,
                    self.topo.nodes[src].name.clone(),
                    self.topo.nodes[dst].name.clone(),
                );
                if matches!(&kind, FlowKind::Udp { source, .. } if source.echo()) {
                    stats.enable_echo();
                }
                self.flows.push(FlowRt { src, dst, kind, stats });
                let key = self.new_timer(TimerOwner::Flow(fi));
                self.flow_timer.push(key);
                self.arm(key, Some(first.min(self.end)));
            }
        }
        for ep in 0..self.eps.len() {
            let key = self.new_timer(TimerOwner::Tcp(ep));
            self.ep_timer.push(key);
        }
        Ok(())
    }

    pub(super) fn source_fires(&mut self, now: SimTime, fi: usize) {
        let src = self.flows[fi].src;
        match &mut self.flows[fi].kind {
            FlowKind::Udp { source, start, stop, .. } => {
                if now < *start || now >= *stop {
                    return;
                }
                if source.saturated() {
                    if src < self.cell0.bss.len() {
                        self.feed(now, src);
                    }
                    return;
                }
                let Firing { msdu_bytes, next } = source.fire(now);
                if next < *stop {
                    self.arm(self.flow_timer[fi], Some(next));
                }
                let p = self.make_udp(now, fi, msdu_bytes);
                self.send_from(now, src, p);
            }
            FlowKind::Tcp { client, sender, bytes, start, stop, .. } => {
                let (client, sender, bytes, start, stop) = (*client, *sender, *bytes, *start, *stop);
                if now >= stop && stop > start {
                    // `traffic.stop_s`: the sending application closes; a
                    // FIN follows the data already written or sent (the
                    // connection still retransmits what is unacknowledged).
                    self.eps[sender].conn.close(now);
                    self.tcp_poll(now, sender);
                    return;
                }
                self.eps[client].open(now);
                match bytes {
                    Some(b) => self.eps[sender].conn.send(b),
                    None => self.eps[sender].conn.set_infinite_source(),
                }
                self.tcp_poll(now, client);
                if sender != client {
                    self.tcp_poll(now, sender);
                }
                if stop < self.end {
                    self.arm(self.flow_timer[fi], Some(stop));
                }
            }
        }
    }

    /// A datagram of flow `fi` carrying an MSDU of `msdu_bytes`.
    pub(super) fn make_udp(&mut self, now: SimTime, fi: usize, msdu_bytes: u32) -> Packet {
        let id = self.ledger.generate();
        let f = &mut self.flows[fi];
        f.stats.on_generated(now, self.warmup);
        let FlowKind::Udp { src_port, source, .. } = &f.kind else { unreachable!("UDP flow") };
        let ip = Ipv4Header::new(addr_of(f.src), addr_of(f.dst), PROTO_UDP);
        let payload = msdu_bytes - LLC_SNAP_LEN - 20 - 8;
        // RFC 862 echo (port 7) for a ping source, else RFC 863 discard (9).
        let dst_port = if source.echo() { ECHO_PORT } else { 9 };
        Packet::new_udp(id, FlowId(fi as u32), now, ip, UdpHeader { src_port: *src_port, dst_port }, payload)
    }

    /// A UDP datagram reached its destination `node`: an echo request is
    /// counted as its flow's delivery and answered with a reply of the
    /// same size, carrying the request's send time (the ping application,
    /// `crate::apps`); an echo reply gives its flow a round-trip time;
    /// any other datagram is its flow's delivery.
    pub(super) fn udp_local(&mut self, now: SimTime, node: usize, p: &Packet, h: &UdpHeader) {
        if h.src_port == ECHO_PORT {
            if self.ledger.deliver(p.id) {
                self.flows[p.flow.idx()].stats.on_echo_reply(p, now, self.warmup);
            }
            return;
        }
        udp_arrived(&mut self.ledger, &mut self.flows, self.warmup, p, now);
        if h.dst_port == ECHO_PORT {
            let id = self.ledger.generate();
            let ip = Ipv4Header::new(p.ip.dst, p.ip.src, PROTO_UDP);
            let reply = UdpHeader { src_port: ECHO_PORT, dst_port: h.src_port };
            let r = Packet::new_udp(id, p.flow, p.created, ip, reply, p.payload_len);
            self.send_from(now, node, r);
        }
    }

    /// Send everything endpoint `ep` has to send and re-arm its timer.
    pub(super) fn tcp_poll(&mut self, now: SimTime, ep: usize) {
        while let Some(seg) = self.eps[ep].conn.poll_transmit(now) {
            let e = &self.eps[ep];
            let ip = Ipv4Header::new(addr_of(e.node), addr_of(e.remote), PROTO_TCP);
            let (node, fi) = (e.node, e.flow);
            let id = self.ledger.generate();
            if seg.payload_len > 0 {
                self.flows[fi].stats.on_generated(now, self.warmup);
            }
            let p = Packet::new_tcp(id, FlowId(fi as u32), now, ip, seg.header, seg.payload_len);
            self.send_from(now, node, p);
        }
        let key = self.ep_timer[ep];
        if let Some((at, gen)) = self.timers.arm_earliest(key, self.eps[ep].conn.next_wakeup()) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    pub(super) fn check_completion(&mut self, now: SimTime, fi: usize) {
        if let FlowKind::Tcp { receiver, bytes: Some(b), completed, .. } = &mut self.flows[fi].kind {
            if completed.is_none() && self.eps[*receiver].conn.delivered_bytes() >= *b {
                *completed = Some(now);
            }
        }
    }

    pub(super) fn sample(&mut self, now: SimTime) {
        for f in self.flows.iter_mut() {
            let cum = match &f.kind {
                FlowKind::Udp { .. } => f.stats.payload_bytes_total,
                FlowKind::Tcp { receiver, .. } => self.eps[*receiver].conn.delivered_bytes(),
            };
            f.stats.sample(now, cum, now <= self.warmup);
        }
    }
}

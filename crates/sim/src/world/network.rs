//! A node's packet path: its agents, then forwarding (the next hop of the
//! static routing table: the WLAN, a wired link, or the node itself) or
//! local delivery (a UDP flow's sink, a TCP endpoint by port, or the
//! outside for an external node).
use super::*;

impl World {
    /// A packet arrived at `node`: deliver it or forward it.
    pub(super) fn receive(&mut self, now: SimTime, node: usize, p: Packet) {
        let Some(dst) = self.topo.node_of(p.ip.dst) else {
            self.drop_packet(now, node, "", &p, DropReason::NoRoute);
            return;
        };
        if dst == node && !self.tunnel.is_empty() && self.tunnel.contains_key(&p.id) {
            return self.untunnel(now, node, p);
        }
        if self.hooked[node] && !self.agents[node].is_empty() {
            return self.receive_hooked(now, node, dst, p);
        }
        self.arrived(now, node, dst, p)
    }

    /// `receive` at the foreign AP's end of a home agent's tunnel: the
    /// packet goes on to its inner destination. (This and the agents'
    /// path are out of line: the usual packet's path takes no copy of the
    /// packet for them.)
    #[cold]
    #[inline(never)]
    fn untunnel(&mut self, now: SimTime, node: usize, mut p: Packet) {
        p.ip.dst = self.tunnel.remove(&p.id).expect("a tunnelled packet");
        self.send_from(now, node, p);
    }

    /// `receive` at a node with agents: they see the packet first.
    #[inline(never)]
    fn receive_hooked(&mut self, now: SimTime, node: usize, dst: usize, mut p: Packet) {
        match self.run_agents(now, node, dst == node, &mut p) {
            Verdict::Pass => self.arrived(now, node, dst, p),
            Verdict::Consume => {
                self.ledger.deliver(p.id);
            }
            Verdict::Drop(r) => self.drop_packet(now, node, "", &p, r),
        }
    }

    /// A packet for node `dst` arrived at `node`, past its agents: forward
    /// it, or deliver it here.
    #[inline(always)]
    fn arrived(&mut self, now: SimTime, node: usize, dst: usize, p: Packet) {
        if dst != node {
            self.send_from(now, node, p);
            return;
        }
        if self.hooked[node] && self.external[node] {
            self.ledger.deliver(p.id);
            self.egress.push(Egress { at: now, node, packet: p });
            return;
        }
        let fi = p.flow.idx();
        if fi >= self.flows.len() {
            // An injected packet of no simulated flow, for a simulated node.
            self.drop_packet(now, node, "", &p, DropReason::NoReceiver);
            return;
        }
        match &p.l4 {
            Transport::Udp(h) => {
                let h = h.clone();
                self.udp_local(now, node, &p, &h)
            }
            Transport::Tcp(h) => {
                let Some(&ep) = self.topo.nodes[node].ports.get(&h.dst_port) else {
                    self.drop_packet(now, node, "", &p, DropReason::NoReceiver);
                    return;
                };
                self.ledger.deliver(p.id);
                // (an agent's copy of a segment whose data arrived already is no delivery)
                if p.payload_len > 0
                    && self.flows[fi].is_receiver(ep)
                    && self.ledger.first_arrival(p.id)
                    && now >= self.warmup
                {
                    self.flows[fi].stats.on_data_arrival(&p, now, self.warmup);
                }
                self.eps[ep].conn.on_segment(now, h, p.payload_len);
                self.tcp_poll(now, ep);
                self.check_completion(now, fi);
            }
        }
    }

    /// Send a packet from `node` towards its destination.
    pub(super) fn send_from(&mut self, now: SimTime, node: usize, p: Packet) {
        let dst = self.topo.node_of(p.ip.dst).expect("routable");
        if let Some(home) = &self.topo.home {
            if self.topo.is_station(dst) && home[dst] == node && self.topo.ap_of[dst] != node {
                return self.tunnel_from(now, node, dst, p);
            }
        }
        self.forward(now, node, dst, p)
    }

    /// `send_from` at the home agent of station `dst`, which is away from
    /// it: the packet goes to its foreign AP (roam.rs). Out of line: the
    /// usual packet's path takes no copy of the packet for it.
    #[cold]
    #[inline(never)]
    fn tunnel_from(&mut self, now: SimTime, node: usize, dst: usize, mut p: Packet) {
        let fa = self.topo.ap_of[dst];
        self.tunnel.insert(p.id, p.ip.dst);
        p.ip.dst = addr_of(fa);
        self.forward(now, node, fa, p)
    }

    /// Send `p` from `node` on its way to node `dst` (its next hop).
    #[inline(always)]
    fn forward(&mut self, now: SimTime, node: usize, dst: usize, p: Packet) {
        match self.topo.next_hop(node, dst) {
            Hop::Local => self.receive(now, node, p),
            Hop::Wlan { ra } => self.enqueue_wlan(now, node, p, ra),
            Hop::Link { link, dir } => {
                if let Some(t) = &self.trace {
                    t.packet(now, node, &self.link_name(link), "enqueue", &p, None);
                }
                match self.links[link][dir].offer(now, p) {
                    Ok(Some(arrival)) => self.arm(self.link_timer[link][dir], Some(arrival)),
                    Ok(None) => {}
                    Err(p) => {
                        let iface = if self.trace.is_some() { self.link_name(link) } else { String::new() };
                        self.drop_packet(now, node, &iface, &p, DropReason::LinkQueueFull)
                    }
                }
            }
            Hop::Unreachable => self.drop_packet(now, node, "", &p, DropReason::NoRoute),
        }
    }

    pub(super) fn enqueue_wlan(&mut self, now: SimTime, sta: usize, p: Packet, ra: usize) {
        let class = if self.topo.is_ap(sta) { self.ap_class[ra] } else { 0 };
        if let Some(t) = &self.trace {
            t.packet(now, sta, "wlan", "enqueue", &p, None);
        }
        self.wq[sta].enqueue(now, Queued::new(p, ra as u32, class), &mut self.dropped);
        self.flush_drops(sta);
        self.feed(now, sta);
        self.qdisc_timer(sta);
    }

    #[inline]
    /// The packets the queue discipline of `sta` just discarded.
    pub(super) fn flush_drops(&mut self, sta: usize) {
        if self.dropped.is_empty() {
            return; // the common case, three times per forwarded packet
        }
        if let Some(t) = &self.trace {
            for (p, r) in &self.dropped {
                t.packet(self.q.now(), sta, "wlan", "drop", p, Some(*r));
            }
        }
        for (p, r) in self.dropped.drain(..) {
            self.ledger.drop(p.id, r);
        }
    }

    /// Drop `p` at `node` (on `iface`, "" if none) for `reason`.
    pub(super) fn drop_packet(&mut self, now: SimTime, node: usize, iface: &str, p: &Packet, reason: DropReason) {
        if let Some(t) = &self.trace {
            t.packet(now, node, iface, "drop", p, Some(reason));
        }
        self.ledger.drop(p.id, reason);
    }

    /// The file and trace name of wired link `link`.
    pub(super) fn link_name(&self, link: usize) -> String {
        let (a, b) = self.topo.link_ends[link];
        format!("link-{}-{}", self.topo.nodes[a].name, self.topo.nodes[b].name)
    }

    pub(super) fn qdisc_timer(&mut self, sta: usize) {
        let key = self.wq_timer[sta];
        if let Some((at, gen)) = self.timers.set(key, self.wq[sta].next_wakeup()) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// Show packet `p`, which arrived at `node`, to the node's agents in
    /// order, until one does not pass it.
    pub(super) fn run_agents(&mut self, now: SimTime, node: usize, local: bool, p: &mut Packet) -> Verdict {
        let at = Arrival { node, local };
        for k in 0..self.agents[node].len() {
            let v = self.agents[node][k].0.on_packet(now, at, p, &mut self.agent_ctx);
            self.agent_done(now, node, k);
            if v != Verdict::Pass {
                return v;
            }
        }
        Verdict::Pass
    }

    /// After a call into agent `k` of `node`: send what it emitted (each a
    /// new packet in the ledger) and re-arm its timer.
    pub(super) fn agent_done(&mut self, now: SimTime, node: usize, k: usize) {
        while self.agent_ctx.has_emitted() {
            let mut batch: Vec<(Packet, bool)> = self.agent_ctx.take_emitted_marked().collect();
            for (p, copy) in batch.iter_mut() {
                p.id = if *copy { self.ledger.generate_copy(p.id) } else { self.ledger.generate() };
            }
            for (p, _) in batch {
                self.send_from(now, node, p);
            }
        }
        self.arm_agent(node, k);
    }

    /// Arm agent `k` of `node` for its next wake-up (no earlier than now).
    pub(super) fn arm_agent(&mut self, node: usize, k: usize) {
        let (agent, key) = &self.agents[node][k];
        let (key, wake) = (*key, agent.next_wakeup().map(|t| t.max(self.q.now())));
        self.arm(key, wake);
    }
}

/// A UDP datagram reached its destination node: counted once (a
/// duplicate delivery is a defect upstream, which the ledger reports).
pub(super) fn udp_arrived(ledger: &mut Ledger, flows: &mut [FlowRt], warmup: SimTime, p: &Packet, now: SimTime) {
    if ledger.deliver(p.id) {
        flows[p.flow.idx()].stats.on_delivered(p, now, warmup);
    }
}

//! Flows: the applications at the ends of the network.
//!
//! [`Flows`] holds every flow of the scenario's traffic (its UDP source or
//! TCP transfer, and its statistics), the TCP endpoints, and their timer
//! keys. Per event: a flow's source fires (`source_fires`: a datagram, a
//! TCP transfer's start or stop), a TCP endpoint's timer runs
//! (`tcp_timer`), and the nodes hand a datagram or a segment to its
//! application (`datagram`, `segment`); what they send goes out by
//! `Nodes::send_from`. A saturated source is instead asked for a datagram
//! by the cells (`saturated_datagram`) whenever its station's MAC is
//! ready.
//!
//! Ping flows: the source's datagrams are echo requests to the echo port
//! of the destination, where the echo responder (`apps::echo`) is bound
//! and answers each; the replies reach the source's port, bound to the
//! ping socket, and give the flow its round-trip times. Every other
//! datagram is its flow's delivery at its destination.
//!
//! Invariants: a flow's index is its `FlowId` and the index of its timer
//! key; every packet a flow sends is a new packet of the ledger; a flow's
//! statistics count a packet's delivery once (the ledger says whether it
//! is the first).
use super::cells::Cells;
use super::kernel::{Kernel, NO_TIMER};
use super::nodes::Nodes;
use super::shape::Shape;
use crate::apps::echo::{self, UdpSocket};
use crate::apps::Firing;
use crate::endpoints::{Endpoint, FlowKind, FlowRt};
use crate::metrics::sampling::Sampling;
use crate::names::Names;
use crate::topology::addr_of;
use wifitcp_core::{FlowId, SimTime};
use wifitcp_net::TimerKey;
use wifitcp_wire::ip::{PROTO_TCP, PROTO_UDP};
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::{Ipv4Header, Packet, TcpHeader, UdpHeader};

pub(super) struct Flows {
    flows: Vec<FlowRt>,
    eps: Vec<Endpoint>,
    /// Timer key of each flow's source.
    flow_timer: Vec<TimerKey>,
    /// Timer key of each TCP endpoint.
    ep_timer: Vec<TimerKey>,
    /// The flows each partition samples, if the world has several
    /// (`set_sampled`).
    sampled: Option<Vec<Vec<u32>>>,
    /// Every flow's name, by flow index (a partition's are empty: a
    /// partitioned run's names stay with the run, `Partitioned`).
    names: Names,
}

impl Flows {
    /// Every flow's name, by flow index (the trace's flow names).
    pub(super) fn names(&self) -> Vec<String> {
        self.names.iter().map(String::from).collect()
    }

    /// Flow `fi`'s name.
    pub(super) fn name(&self, fi: usize) -> &str {
        self.names.get(fi)
    }

    /// Every flow's name, by flow index.
    pub(super) fn name_table(&self) -> &Names {
        &self.names
    }

    pub(super) fn new(
        flows: Vec<FlowRt>,
        eps: Vec<Endpoint>,
        flow_timer: Vec<TimerKey>,
        ep_timer: Vec<TimerKey>,
        names: Names,
    ) -> Flows {
        let (mut flows, mut flow_timer, mut names) = (flows, flow_timer, names);
        // (built by pushes: without the spare capacity, a third of the
        // flows' memory at thousands of flows)
        flows.shrink_to_fit();
        flow_timer.shrink_to_fit();
        names.shrink_to_fit();
        Flows { flows, eps, flow_timer, ep_timer, sampled: None, names }
    }

    /// Whether `fi` is a flow of the scenario.
    #[inline(always)]
    pub(super) fn has(&self, fi: usize) -> bool {
        fi < self.flows.len()
    }

    /// A data packet of flow `fi` was created now outside its sender (an
    /// agent's split connection); nothing if `fi` is no flow.
    pub(super) fn generated(&mut self, k: &Kernel, fi: usize) {
        if let Some(f) = self.flows.get_mut(fi) {
            f.stats.on_generated(k.now(), k.warmup);
        }
    }

    pub(super) fn flows(&self) -> &[FlowRt] {
        &self.flows
    }

    pub(super) fn eps(&self) -> &[Endpoint] {
        &self.eps
    }

    /// Flow `fi`'s source fires.
    pub(super) fn source_fires(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        cells: &mut Cells,
        fi: usize,
    ) {
        let now = k.now();
        let f = &self.flows[fi];
        let (src, start, stop) = (f.src(), f.start, f.stop);
        match &mut self.flows[fi].kind {
            FlowKind::Udp(source) => {
                if now < start || now >= stop {
                    return;
                }
                if source.saturated() {
                    if src < cells.members() {
                        cells.feed(shape, k, nodes, self, src);
                    }
                    return;
                }
                let Firing { msdu_bytes, next } = source.fire(now);
                let echo = source.echo();
                if next < stop {
                    k.arm(shape, self.flow_timer[fi], Some(next));
                }
                let p = self.make_udp(k, fi, msdu_bytes, echo);
                nodes.send_from(shape, k, cells, self, src, p);
            }
            FlowKind::Tcp(t) => {
                let (client, sender) = (t.client, t.sender);
                self.eps[client].open(now);
                if sender == client {
                    self.give_sender_data(fi);
                }
                self.tcp_poll(shape, k, nodes, cells, client);
            }
        }
    }

    /// TCP flow `fi` stops (`traffic.stop_s`, after its start): the
    /// sending application closes; a FIN follows the data already written
    /// or sent (the connection still retransmits what is unacknowledged).
    /// The sender's own event, armed when the world is built, so a stop
    /// touches nothing of the client's node (which may be in another
    /// partition than the sender's, `part.rs`).
    pub(super) fn stop_fires(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        cells: &mut Cells,
        fi: usize,
    ) {
        let FlowKind::Tcp(t) = &self.flows[fi].kind else { unreachable!("a TCP flow's stop") };
        let sender = t.sender;
        self.eps[sender].conn.close(k.now());
        self.tcp_poll(shape, k, nodes, cells, sender);
    }

    /// TCP flow `fi`'s sender gets the application's data (`traffic.bytes`,
    /// or an endless source). A client that sends gets it when the flow
    /// starts and it opens; a server that sends (a download) gets it when
    /// the world is built (`prime_servers`): it listens until the client's
    /// SYN arrives, after the start, so nothing it does can tell the two
    /// instants apart, and the start, which is the client's event, does
    /// not touch the server (a server's node may be in another partition,
    /// `part.rs`).
    fn give_sender_data(&mut self, fi: usize) {
        if let FlowKind::Tcp(t) = &self.flows[fi].kind {
            let sender = t.sender;
            match t.bytes {
                Some(b) => self.eps[sender].conn.send(b),
                None => self.eps[sender].conn.set_infinite_source(),
            }
        }
    }

    /// Give every sending server its data (`give_sender_data`).
    pub(super) fn prime_servers(&mut self) {
        for fi in 0..self.flows.len() {
            if matches!(&self.flows[fi].kind, FlowKind::Tcp(t) if t.client != t.sender) {
                self.give_sender_data(fi);
            }
        }
    }

    /// Whether UDP flow `fi` is active at `now`.
    #[inline(always)]
    pub(super) fn udp_active(&self, fi: usize, now: SimTime) -> bool {
        self.flows[fi].udp_active(now)
    }

    /// A datagram of saturated flow `fi` (MSDUs of `msdu_bytes`, the
    /// traffic's, held beside the flow by its station), which its
    /// station's MAC asks for.
    pub(super) fn saturated_datagram(&mut self, k: &mut Kernel, fi: usize, msdu_bytes: u32) -> Packet {
        self.make_udp(k, fi, msdu_bytes, false)
    }

    /// A datagram of flow `fi` carrying an MSDU of `msdu_bytes`: an echo
    /// request if `echo` (a ping source's), else a datagram to discard.
    fn make_udp(&mut self, k: &mut Kernel, fi: usize, msdu_bytes: u32, echo: bool) -> Packet {
        let now = k.now();
        let id = k.ledger.generate();
        let f = &mut self.flows[fi];
        f.stats.on_generated(now, k.warmup);
        debug_assert!(matches!(f.kind, FlowKind::Udp(_)), "a UDP flow");
        let ip = Ipv4Header { tos: f.tos, ..Ipv4Header::new(addr_of(f.src()), addr_of(f.dst()), PROTO_UDP) };
        let payload = msdu_bytes - LLC_SNAP_LEN - 20 - 8;
        let dst_port = if echo { echo::PORT } else { echo::DISCARD_PORT };
        Packet::new_udp(id, FlowId(fi as u32), now, ip, UdpHeader { src_port: f.src_port, dst_port }, payload)
    }

    /// A UDP datagram reached its destination node, where the port it is
    /// for has no socket: counted once as its flow's delivery (a duplicate
    /// delivery is a defect upstream, which the ledger reports).
    #[inline]
    pub(super) fn datagram_arrived(&mut self, k: &mut Kernel, p: &Packet) {
        if k.ledger.deliver(p.id) {
            self.flows[p.flow.idx()].stats.on_delivered(p, k.now(), k.warmup);
        }
    }

    /// A UDP datagram `p` (header `h`) reached its destination node, for a
    /// port bound to `socket` (if any): the ping socket takes an echo
    /// reply (its flow's round-trip time), the echo responder counts a
    /// request and answers it (the reply is returned, for the node to
    /// send), and anything else is its flow's delivery.
    pub(super) fn datagram(
        &mut self,
        k: &mut Kernel,
        p: &Packet,
        h: &UdpHeader,
        socket: Option<UdpSocket>,
    ) -> Option<Packet> {
        match socket {
            Some(UdpSocket::Ping) => {
                if k.ledger.deliver(p.id) {
                    self.flows[p.flow.idx()].stats.on_echo_reply(p, k.now(), k.warmup);
                }
                None
            }
            Some(UdpSocket::Echo) => {
                self.datagram_arrived(k, p);
                Some(echo::reply(k.ledger.generate(), p, h))
            }
            None => {
                self.datagram_arrived(k, p);
                None
            }
        }
    }

    /// TCP segment `p` (header `h`) reached endpoint `ep`: deliver it to
    /// the connection, send what it answers, note a completed transfer.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn segment(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        cells: &mut Cells,
        ep: usize,
        p: &Packet,
        h: &TcpHeader,
    ) {
        let now = k.now();
        let fi = p.flow.idx();
        k.ledger.deliver(p.id);
        // (an agent's copy of a segment whose data arrived already is no delivery)
        if p.payload_len > 0 && self.flows[fi].is_receiver(ep) && k.ledger.first_arrival(p.id) && now >= k.warmup {
            self.flows[fi].stats.on_data_arrival(p, now, k.warmup);
        }
        self.eps[ep].conn.on_segment_ecn(now, h, p.payload_len, p.ip.ecn_codepoint());
        self.tcp_poll(shape, k, nodes, cells, ep);
        self.check_completion(now, fi);
    }

    /// TCP endpoint `ep`'s timer.
    #[inline(always)]
    pub(super) fn tcp_timer(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        cells: &mut Cells,
        ep: usize,
    ) {
        // Armed lazily: the connection runs at the earliest instant it ever
        // asked for; if its deadline moved later meanwhile, it is re-armed
        // without acting.
        let now = k.now();
        if self.eps[ep].conn.next_wakeup().is_some_and(|t| t <= now) {
            self.eps[ep].conn.on_timer(now);
        }
        self.tcp_poll(shape, k, nodes, cells, ep);
    }

    /// Send everything endpoint `ep` has to send and re-arm its timer.
    fn tcp_poll(&mut self, shape: impl Shape, k: &mut Kernel, nodes: &mut Nodes, cells: &mut Cells, ep: usize) {
        let now = k.now();
        while let Some(seg) = self.eps[ep].conn.poll_transmit(now) {
            let e = &self.eps[ep];
            let (node, fi) = (e.node, e.flow);
            let tos = self.flows[fi].tos;
            let mut ip = Ipv4Header { tos, ..Ipv4Header::new(addr_of(e.node), addr_of(e.remote), PROTO_TCP) };
            ip.set_ecn(seg.ecn);
            let id = k.ledger.generate();
            if seg.payload_len > 0 {
                self.flows[fi].stats.on_generated(now, k.warmup);
            }
            let p = Packet::new_tcp(id, FlowId(fi as u32), now, ip, seg.header, seg.payload_len);
            nodes.send_from(shape, k, cells, self, node, p);
        }
        k.arm_earliest(shape, self.ep_timer[ep], self.eps[ep].conn.next_wakeup());
    }

    fn check_completion(&mut self, now: SimTime, fi: usize) {
        if let FlowKind::Tcp(t) = &mut self.flows[fi].kind {
            if let Some(b) = t.bytes {
                if t.completed.is_none() && self.eps[t.receiver].conn.delivered_bytes() >= b {
                    t.completed = Some(now);
                }
            }
        }
    }

    /// Sample the delivered bytes of every flow (of partition `part`) at
    /// `now`, a sampling instant before the end.
    pub(super) fn sample(&mut self, part: Option<u16>) {
        self.sample_at(part, None);
    }

    /// Sample every flow's delivered bytes at the end of the run `s`.
    pub(super) fn sample_end(&mut self, s: &Sampling) {
        self.sample_at(None, Some(s.before_end().count()));
    }

    fn sample_at(&mut self, part: Option<u16>, end_after: Option<usize>) {
        let (flows, eps) = (&mut self.flows, &self.eps);
        let one = |f: &mut FlowRt| {
            let cum = match &f.kind {
                FlowKind::Udp(_) => f.stats.payload_bytes_total,
                FlowKind::Tcp(t) => eps[t.receiver].conn.delivered_bytes(),
            };
            match end_after {
                None => f.stats.sample(cum),
                Some(before) => f.stats.sample_end(cum, before),
            }
        };
        match (&self.sampled, part) {
            (Some(lists), Some(p)) => lists[p as usize].iter().for_each(|&fi| one(&mut flows[fi as usize])),
            _ => flows.iter_mut().for_each(one),
        }
    }

    /// Sample the flows of partition `p` at its own sampling events
    /// (`sampled[p]`, by flow index) instead of every flow at one
    /// (`kernel.rs`, "Same-instant order").
    pub(super) fn set_sampled(&mut self, sampled: Vec<Vec<u32>>) {
        self.sampled = Some(sampled);
    }

    /// The node that generates flow `fi`'s data packets (its UDP source,
    /// its TCP sender).
    pub(super) fn generator(&self, fi: usize) -> usize {
        match &self.flows[fi].kind {
            FlowKind::Tcp(t) => self.eps[t.sender].node,
            FlowKind::Udp(_) => self.flows[fi].src(),
        }
    }

    /// Merging a windowed run's groups (`window.rs`): flow `fi`'s record
    /// exchanged with `other`'s (its destination's group's).
    pub(super) fn swap_flow(&mut self, other: &mut Flows, fi: usize) {
        std::mem::swap(&mut self.flows[fi], &mut other.flows[fi]);
    }

    /// Flow `fi`'s source counts taken from `source`, its generator's
    /// group's copy (`FlowStats::take_source_counts`).
    pub(super) fn take_source_counts(&mut self, source: &mut Flows, fi: usize) {
        self.flows[fi].stats.take_source_counts(&mut source.flows[fi].stats);
    }

    /// TCP endpoint `ep` exchanged with `other`'s (its node's group's).
    pub(super) fn swap_ep(&mut self, other: &mut Flows, ep: usize) {
        std::mem::swap(&mut self.eps[ep], &mut other.eps[ep]);
    }

    /// Every TCP receiver delivered one in-order byte stream.
    pub(super) fn check_end(&self) -> Result<(), String> {
        for e in &self.eps {
            e.conn
                .check_stream_integrity()
                .map_err(|m| format!("TCP receiver of flow {}: {m}", self.names.get(e.flow)))?;
        }
        Ok(())
    }
}

// ----------------------------------------------------------------------
// Partitioned runs (`part.rs`).

impl Flows {
    /// Whether the flows can be split among partitions: no TCP endpoint
    /// (a TCP endpoint's index is bound in the shared topology's port
    /// tables, which a partition does not renumber).
    pub(super) fn partitionable(&self) -> bool {
        self.eps.is_empty()
    }

    /// The flows split among `parts` partitions, flow `fi` going to
    /// `part_of[fi]`: each partition's flows in flow order, numbered from
    /// 0 there (each keeps its index in the run, `FlowRt::index`), with
    /// their timer keys; and every flow's name, by the run's index.
    pub(super) fn split(self, part_of: &[usize], parts: usize) -> (Vec<Flows>, Names) {
        debug_assert!(self.partitionable());
        // The flows move from the back of the run's table to their
        // partition's; the run's table shrinks and the partitions' grow by
        // sixteenths, so the two are never both whole (at thousands of
        // flows they would set the peak of the heap). Each partition's
        // flows come out in reverse flow order and are turned round.
        let mut size = vec![0; parts];
        for &p in part_of {
            size[p] += 1;
        }
        let mut out: Vec<Flows> = (0..parts)
            .map(|_| Flows {
                flows: Vec::new(),
                eps: Vec::new(),
                flow_timer: Vec::new(),
                ep_timer: Vec::new(),
                sampled: None,
                names: Names::default(),
            })
            .collect();
        let (mut flows, mut timers) = (self.flows, self.flow_timer);
        let step = (flows.len() / 16).max(1);
        while let Some(f) = flows.pop() {
            let fi = flows.len();
            let p = part_of[fi];
            let o = &mut out[p];
            if o.flows.len() == o.flows.capacity() {
                o.flows.reserve_exact((size[p] / 16).clamp(1, size[p] - o.flows.len()));
            }
            o.flows.push(f);
            o.flow_timer.push(timers.pop().expect("a timer key per flow"));
            if fi % step == 0 {
                flows.shrink_to_fit();
                timers.shrink_to_fit();
            }
        }
        for o in &mut out {
            o.flows.reverse();
            o.flow_timer.reverse();
            o.flow_timer.shrink_to_fit();
        }
        (out, self.names)
    }

    /// Register a new timer key for each flow's source with `register`
    /// (a partition's own registry), in flow order.
    pub(super) fn register_timers(&mut self, mut register: impl FnMut(usize) -> TimerKey) {
        let fires_again = |fi: usize| self.flows[fi].fires_again();
        self.flow_timer =
            (0..self.flows.len()).map(|fi| if fires_again(fi) { register(fi) } else { NO_TIMER }).collect();
    }

    /// Flows whose source fires again (each with a timer key).
    pub(super) fn timed(&self) -> usize {
        self.flows.iter().filter(|f| f.fires_again()).count()
    }
}

//! Agents in whole runs: a packet hook at the AP that drops, consumes or
//! emits packets and asks for wake-ups, with the packet ledger balancing
//! (every run checks it and fails otherwise).
use serde_json::{json, Value};
use wifitcp_core::{DropReason, SimDur, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_sim::{world::World, Scenario};
use wifitcp_wire::Packet;

fn scenario() -> Scenario {
    let s = json!({
        "scenario": {"name": "agents", "duration_s": 2.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": 1},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 2}],
        "traffic": [{"name": "up", "kind": "udp", "pattern": "cbr", "rate_mbps": 2.0, "peer": "server"}]
    });
    Scenario::from_json(&s.to_string()).expect("valid")
}

fn run(agent: Option<Box<dyn Agent>>) -> Value {
    let s = scenario();
    let mut w = World::build(&s, 1).unwrap();
    if let Some(a) = agent {
        let ap = w.node_index("ap").expect("an AP named ap");
        w.add_agent(ap, a).unwrap();
    }
    w.run(std::time::Instant::now()).expect("ledger balances").into_value()
}

/// Drops every `n`-th forwarded UDP packet, consumes every `m`-th, and
/// re-sends a copy of every `k`-th one millisecond later (from a timer).
struct Meddler {
    n: u64,
    m: u64,
    k: u64,
    seen: u64,
    dropped: u64,
    consumed: u64,
    held: Vec<(SimTime, Packet)>,
    emitted: u64,
}

impl Agent for Meddler {
    fn kind(&self) -> &'static str {
        "meddler"
    }
    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, _ctx: &mut AgentCtx) -> Verdict {
        if at.local || pkt.tcp().is_some() {
            return Verdict::Pass;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(self.n) {
            self.dropped += 1;
            return Verdict::Drop(DropReason::Proxy);
        }
        if self.seen.is_multiple_of(self.m) {
            self.consumed += 1;
            return Verdict::Consume;
        }
        if self.seen.is_multiple_of(self.k) {
            self.held.push((now + SimDur::from_millis(1), pkt.clone()));
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, now: SimTime, ctx: &mut AgentCtx) {
        while self.held.first().is_some_and(|(t, _)| *t <= now) {
            ctx.emit(self.held.remove(0).1);
            self.emitted += 1;
        }
    }
    fn next_wakeup(&self) -> Option<SimTime> {
        self.held.first().map(|(t, _)| *t)
    }
    fn report(&self) -> Option<(&'static str, Value)> {
        Some(("meddler", json!({"dropped": self.dropped, "consumed": self.consumed, "emitted": self.emitted})))
    }
}

#[test]
fn an_agent_drops_consumes_and_emits_with_the_ledger_balanced() {
    let plain = run(None);
    let r =
        run(Some(Box::new(Meddler { n: 5, m: 7, k: 3, seen: 0, dropped: 0, consumed: 0, held: vec![], emitted: 0 })));
    let ap = r["queues"].as_array().unwrap().iter().find(|q| q["node"] == "ap").expect("the AP's queue record").clone();
    let m = &ap["meddler"];
    let (d, c, e) = (m["dropped"].as_u64().unwrap(), m["consumed"].as_u64().unwrap(), m["emitted"].as_u64().unwrap());
    assert!(d > 50 && c > 30 && e > 50, "{m}");
    assert_eq!(r["ledger"]["dropped"]["proxy"].as_u64().unwrap(), d);
    let gen = |v: &Value| v["ledger"]["generated"].as_u64().unwrap();
    assert_eq!(gen(&r), gen(&plain) + e, "each emitted packet is a new packet in the ledger");
    // The server receives what was passed on plus the copies.
    let got = |v: &Value| v["flows"][0]["packets_delivered"].as_u64().unwrap();
    let sent = |v: &Value| v["flows"][0]["packets_generated"].as_u64().unwrap();
    // An emitted packet (not marked as a copy) is a new data packet of the
    // flow: it counts as generated, so delivered <= generated holds.
    assert_eq!(sent(&r), sent(&plain) + e);
    assert_eq!(got(&r), got(&plain) - d - c + e);
    assert!(ap.get("window_rewrites").is_some_and(|w| w.is_null()));
}

#[test]
fn a_passive_agent_changes_nothing() {
    struct Count(u64);
    impl Agent for Count {
        fn kind(&self) -> &'static str {
            "count"
        }
        fn on_packet(&mut self, _: SimTime, _: Arrival, _: &mut Packet, _: &mut AgentCtx) -> Verdict {
            self.0 += 1;
            Verdict::Pass
        }
    }
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("wall_time_s");
        v.to_string()
    };
    assert_eq!(strip(run(None)), strip(run(Some(Box::new(Count(0))))));
}

#[test]
fn add_agent_rejects_a_missing_node() {
    let mut w = World::build(&scenario(), 1).unwrap();
    struct Nop;
    impl Agent for Nop {
        fn kind(&self) -> &'static str {
            "nop"
        }
        fn on_packet(&mut self, _: SimTime, _: Arrival, _: &mut Packet, _: &mut AgentCtx) -> Verdict {
            Verdict::Pass
        }
    }
    assert!(w.add_agent(99, Box::new(Nop)).unwrap_err().contains("no node 99"));
}

//! The driver API: step a network in pieces, inject packets at a node,
//! drain the packets that reach external nodes (what the emulator does with
//! real frames, at wall-clock instants).
use serde_json::json;
use wifitcp_core::{FlowId, PacketId, SimDur, SimTime};
use wifitcp_sim::topology::addr_of;
use wifitcp_sim::{world::World, Scenario};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Header, Packet, UdpHeader};

fn world() -> World {
    let s = json!({
        "scenario": {"name": "driver", "duration_s": 1.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": 1},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 5}],
        "traffic": []
    });
    World::build(&Scenario::from_json(&s.to_string()).expect("valid"), 1).unwrap()
}

fn udp(from: usize, to: usize, bytes: u32) -> Packet {
    udp_ports(from, to, 7, bytes)
}

fn udp_ports(from: usize, to: usize, port: u16, bytes: u32) -> Packet {
    let ip = Ipv4Header::new(addr_of(from), addr_of(to), PROTO_UDP);
    Packet::new_udp(
        PacketId(0),
        FlowId(u32::MAX),
        SimTime::ZERO,
        ip,
        UdpHeader { src_port: port, dst_port: port },
        bytes,
    )
}

#[test]
fn injected_packets_cross_the_wlan_and_the_link_to_an_external_node() {
    let mut w = world();
    let (sta, server) = (w.node_index("sta0").unwrap(), w.node_index("server").unwrap());
    w.set_external(sta).unwrap();
    w.set_external(server).unwrap();
    // Ten datagrams from the station, one every 2 ms, stepping as a
    // wall-clock driver would (in 1 ms pieces).
    let mut got = Vec::new();
    for k in 0..100u64 {
        let t = SimTime::from_millis(k);
        if k % 2 == 0 && k < 20 {
            w.inject(t, sta, udp(sta, server, 1000)).unwrap();
        }
        w.step_until(t);
        got.extend(w.drain_egress());
    }
    assert_eq!(got.len(), 10);
    for (k, e) in got.iter().enumerate() {
        assert_eq!(e.node, server);
        let sent = SimTime::from_millis(2 * k as u64);
        // 802.11a airtime of a 1036-byte MSDU plus DIFS is over 150 us,
        // then 5 ms of link delay and the link's serialisation.
        let d = e.at.since(sent);
        assert!(d > SimDur::from_micros(5_150) && d < SimDur::from_micros(6_000), "delay {d:?}");
        assert_eq!(e.packet.payload_len, 1000);
    }
    // and back: the server answers the station
    w.inject(SimTime::from_millis(100), server, udp(server, sta, 40)).unwrap();
    w.step_until(SimTime::from_millis(120));
    let back = w.drain_egress();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].node, sta);
    let r = w.finish(std::time::Instant::now()).expect("ledger balances");
    assert_eq!(r.get("ledger")["generated"], 11);
    assert_eq!(r.get("ledger")["delivered"], 11);
}

#[test]
fn inject_refuses_the_past_and_unknown_nodes() {
    let mut w = world();
    w.step_until(SimTime::from_millis(10));
    w.inject(SimTime::from_millis(20), 0, udp(1, 2, 10)).unwrap();
    assert!(w.inject(SimTime::from_millis(15), 0, udp(1, 2, 10)).is_err(), "before an earlier injection");
    assert!(w.inject(SimTime::from_millis(30), 99, udp(1, 2, 10)).unwrap_err().contains("no node 99"));
    assert!(w.set_external(99).is_err());
}

#[test]
fn a_packet_of_no_flow_for_a_simulated_node_is_dropped_with_a_reason() {
    let mut w = world();
    let (sta, server) = (w.node_index("sta0").unwrap(), w.node_index("server").unwrap());
    w.inject(SimTime::from_millis(1), sta, udp(sta, server, 100)).unwrap();
    w.step_until(SimTime::from_millis(50));
    assert!(w.drain_egress().is_empty());
    let r = w.finish(std::time::Instant::now()).expect("ledger balances");
    assert_eq!(r.get("ledger")["dropped"]["no_receiver"], 1);
}

#[test]
fn an_injected_packet_for_an_address_outside_the_scenario_is_dropped_with_a_reason() {
    // What real hosts behind the emulator send (name servers, multicast):
    // no node has the address, so it goes nowhere, and says so.
    let mut w = world();
    let sta = w.node_index("sta0").unwrap();
    let mut p = udp(sta, sta, 100);
    p.ip.dst = std::net::Ipv4Addr::new(224, 0, 0, 251);
    w.inject(SimTime::from_millis(1), sta, p).unwrap();
    w.step_until(SimTime::from_millis(50));
    assert!(w.drain_egress().is_empty());
    let r = w.finish(std::time::Instant::now()).expect("ledger balances");
    assert_eq!(r.get("ledger")["dropped"]["no_route"], 1);
}

#[test]
fn a_datagram_of_no_flow_for_a_station_is_dropped_with_a_reason() {
    // Over the WLAN to a station with no agents, whatever its ports.
    let mut w = world();
    let (sta, server) = (w.node_index("sta0").unwrap(), w.node_index("server").unwrap());
    for (k, port) in [7, 9, 5_001].into_iter().enumerate() {
        w.inject(SimTime::from_millis(1 + k as u64), server, udp_ports(server, sta, port, 100)).unwrap();
    }
    w.step_until(SimTime::from_millis(50));
    let r = w.finish(std::time::Instant::now()).expect("ledger balances");
    assert_eq!(r.get("ledger")["dropped"]["no_receiver"], 3);
}

//! The emulation loop without namespaces: each node's "interface" is one
//! end of a SOCK_SEQPACKET socket pair (one datagram per read, as a TUN
//! descriptor gives), so the loop runs unprivileged. Real UDP datagrams
//! sent "from sta0" come out "at server" byte for byte, after the delay
//! the simulated WLAN and link impose, and the run reports its lag.
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::{Duration, Instant};
use wifitcp_emu::{sys::Tun, Options, Port};
use wifitcp_sim::topology::addr_of;
use wifitcp_sim::{world::World, Scenario};
use wifitcp_wire::codec::udp::UdpRepr;

fn pair() -> (OwnedFd, OwnedFd) {
    let mut fds = [0i32; 2];
    // SAFETY: valid out-array; result checked.
    let r = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) };
    assert_eq!(r, 0);
    // SAFETY: fresh descriptors we own.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

fn world(duration_s: f64) -> World {
    let s = serde_json::json!({
        "scenario": {"name": "emu-loop", "duration_s": duration_s},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": 1},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 5}],
        "traffic": []
    });
    World::build(&Scenario::from_json(&s.to_string()).unwrap(), 1).unwrap()
}

fn datagram(k: u16) -> Vec<u8> {
    let (src, dst) = (addr_of(1), addr_of(2));
    let payload: Vec<u8> = (0..1000u32).map(|i| (i as u16 ^ k) as u8).collect();
    let u = UdpRepr { src_port: 4000, dst_port: 9, payload_len: payload.len() };
    let l4 = u.to_bytes(src, dst, Some(&payload)).unwrap();
    let ip = wifitcp_wire::codec::ipv4::Ipv4Repr {
        src,
        dst,
        tos: 0,
        ident: k,
        dont_frag: true,
        more_frags: false,
        frag_offset: 0,
        ttl: 64,
        protocol: 17,
        options: vec![],
        payload_len: l4.len(),
    };
    ip.to_bytes(Some(&l4)).unwrap()
}

#[test]
fn datagrams_cross_the_simulated_network_in_real_time_byte_for_byte() {
    let w = world(1.0);
    let (sta, server) = (w.node_index("sta0").unwrap(), w.node_index("server").unwrap());
    let (sta_ns, sta_emu) = pair();
    let (srv_ns, srv_emu) = pair();
    let ports = vec![
        Port { node: sta, tun: Tun::from_fd(sta_emu, "sta0").unwrap() },
        Port { node: server, tun: Tun::from_fd(srv_emu, "server").unwrap() },
    ];
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        let mut sent = Vec::new();
        for k in 0..20u16 {
            let d = datagram(k);
            // the instant before the write: the loop (real-time) may read
            // and inject the datagram before this thread runs again
            let t0 = Instant::now();
            // SAFETY: valid buffer and descriptor.
            let n = unsafe { libc::write(std::os::fd::AsRawFd::as_raw_fd(&sta_ns), d.as_ptr().cast(), d.len()) };
            assert_eq!(n as usize, d.len());
            sent.push((t0, d));
            std::thread::sleep(Duration::from_millis(10));
        }
        (sent, sta_ns)
    });
    let receiver = std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = vec![0u8; 4096];
        wifitcp_emu::sys::set_nonblocking(std::os::fd::AsRawFd::as_raw_fd(&srv_ns)).unwrap();
        let until = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < until && got.len() < 20 {
            match wifitcp_emu::sys::read_nb(std::os::fd::AsRawFd::as_raw_fd(&srv_ns), &mut buf).unwrap() {
                Some(n) => got.push((Instant::now(), buf[..n].to_vec())),
                None => std::thread::sleep(Duration::from_micros(200)),
            }
        }
        got
    });
    let res = wifitcp_emu::run(
        w,
        ports,
        &Options { max_lag_p99: wifitcp_core::SimDur::from_millis(50), ..Default::default() },
    )
    .expect("run");
    let (sent, _keep) = sender.join().unwrap();
    let got = receiver.join().unwrap();
    assert_eq!(got.len(), 20, "{res}");
    for ((t0, a), (t1, b)) in sent.iter().zip(&got) {
        assert_eq!(a, b, "the real bytes come out unchanged");
        // 802.11a airtime of a 1028-byte MSDU (DIFS, backoff, frame, SIFS,
        // ACK: about 0.25 ms), 5 ms of link delay and 0.08 ms of
        // serialisation at 100 Mbit/s: no earlier than 5.2 ms, and late by
        // at most the scheduling delays of a shared machine (the test
        // threads are ordinary ones).
        let d = t1.duration_since(*t0);
        assert!(d >= Duration::from_micros(5_200) && d < Duration::from_millis(250), "delay {d:?}");
    }
    let e = &res["emulation"];
    assert_eq!(e["datagrams_injected"], 20);
    assert_eq!(e["datagrams_written"], 20);
    assert!(e["event_lag"]["samples"].as_u64().unwrap() > 20);
    assert_eq!(res["ledger"]["delivered"], 20);
    let f = &res["flows"][0];
    assert_eq!(f["src"], "sta0");
    assert_eq!(f["dst"], "server");
    assert_eq!(f["bytes_delivered"], 20 * 1000);
}

#[test]
fn a_stop_request_ends_the_run_early_and_marks_it_not_valid() {
    let w = world(30.0);
    let (r, wr) = pair();
    let t = Instant::now();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: valid descriptor and one-byte buffer.
        unsafe { libc::write(std::os::fd::AsRawFd::as_raw_fd(&wr), b"x".as_ptr().cast(), 1) };
        wr
    });
    let opts = Options { stop_fd: Some(std::os::fd::AsRawFd::as_raw_fd(&r)), ..Default::default() };
    let res = wifitcp_emu::run(w, Vec::new(), &opts).unwrap();
    let _ = stopper.join();
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(res["emulation"]["stopped_early"], true);
    assert_eq!(res["emulation"]["valid"], false);
}

#[test]
fn an_end_request_ends_the_run_there_and_keeps_it_valid() {
    // A 30 s scenario ended after about 0.4 s (as `wifitcp emulate --
    // COMMAND` does when the command exits): the world's end and the
    // measurement window end there, so the goodput of 20 kB is over
    // about 0.4 s, not 30 s; the run is not an interrupted one.
    let w = world(30.0);
    let (sta, server) = (w.node_index("sta0").unwrap(), w.node_index("server").unwrap());
    let (sta_ns, sta_emu) = pair();
    let (_srv_ns, srv_emu) = pair();
    let ports = vec![
        Port { node: sta, tun: Tun::from_fd(sta_emu, "sta0").unwrap() },
        Port { node: server, tun: Tun::from_fd(srv_emu, "server").unwrap() },
    ];
    let (r, wr) = pair();
    let t = Instant::now();
    let driver = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        for k in 0..20u16 {
            let d = datagram(k);
            // SAFETY: valid buffer and descriptor.
            unsafe { libc::write(std::os::fd::AsRawFd::as_raw_fd(&sta_ns), d.as_ptr().cast(), d.len()) };
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(250));
        // SAFETY: valid descriptor and one-byte buffer.
        unsafe { libc::write(std::os::fd::AsRawFd::as_raw_fd(&wr), b"e".as_ptr().cast(), 1) };
        (wr, sta_ns)
    });
    let opts = Options {
        end_fd: Some(std::os::fd::AsRawFd::as_raw_fd(&r)),
        max_lag_p99: wifitcp_core::SimDur::from_millis(50),
        ..Default::default()
    };
    let res = wifitcp_emu::run(w, ports, &opts).unwrap();
    let _ = driver.join();
    assert!(t.elapsed() < Duration::from_secs(5));
    let e = &res["emulation"];
    assert_eq!(e["ended_on_request"], true);
    assert_eq!(e["stopped_early"], false);
    assert_eq!(e["valid"], true, "{e}");
    let until = e["measured_s"][1].as_f64().unwrap();
    let ran = e["ran_s"].as_f64().unwrap();
    assert!(until > 0.3 && until <= ran && until < 3.0, "measured to {until} s, ran {ran} s");
    assert_eq!(res["ledger"]["delivered"], 20);
    let f = &res["flows"][0];
    assert_eq!(f["bytes_delivered"], 20 * 1000);
    let want = 20_000.0 * 8.0 / until / 1e6;
    let got = f["goodput_mbps"].as_f64().unwrap();
    assert!((got - want).abs() < 0.01 * want, "goodput {got} Mbit/s, over the shortened window {want}");
}

//! Samples of wifitcp's small-scale fading on independent links, for
//! bench/compare-fading (beside ns-3's, bench/ns3/fading-trace.cc): the
//! power gain |h|^2 (linear, mean 1) every `dt` seconds over `duration`
//! seconds, of `links` links, each with its own stream
//! (`fading::link_stream(seed, 2i, 2i + 1)`). Rayleigh by M sinusoids at
//! maximum Doppler shift `fd`, or Nakagami-m (a draw per distinct instant).
//!
//! Output: one line per sample, "link power_gain", samples in time order
//! and links in order within a sample.
//!
//! `cargo run --release -p wifitcp-wifi --example fading_trace -- MODEL FD SINUSOIDS_OR_M LINKS DURATION DT SEED`
use wifitcp_core::{NodeId, SimTime};
use wifitcp_wifi::channel::fading::{link_stream, Fading, FadingModel};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: fading_trace rayleigh|nakagami FD SINUSOIDS_OR_M LINKS DURATION DT SEED";
    if a.len() != 7 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let num = |i: usize| -> f64 {
        a[i].parse().unwrap_or_else(|_| {
            eprintln!("fading_trace: argument {}: not a number: {}", i + 1, a[i]);
            std::process::exit(2)
        })
    };
    let (fd, p, links, duration, dt, seed) = (num(1), num(2), num(3) as u32, num(4), num(5), num(6) as u64);
    let model = match a[0].as_str() {
        "rayleigh" => FadingModel::Rayleigh { sinusoids: p as usize },
        "nakagami" => FadingModel::Nakagami { m: p },
        other => {
            eprintln!("fading_trace: unknown model {other}; {usage}");
            std::process::exit(2)
        }
    };
    let procs: Vec<Fading> = (0..links)
        .map(|i| {
            let mut rng = link_stream(seed, NodeId(2 * i), NodeId(2 * i + 1));
            Fading::new(model, fd, &mut rng).unwrap_or_else(|e| {
                eprintln!("fading_trace: {e}");
                std::process::exit(2)
            })
        })
        .collect();
    let n = (duration / dt).round() as u64;
    let mut out = String::new();
    for k in 0..n {
        let t = SimTime::from_nanos((k as f64 * dt * 1e9).round() as u64);
        for (i, f) in procs.iter().enumerate() {
            out.push_str(&format!("{i} {:.9e}\n", f.power_gain(t)));
        }
    }
    print!("{out}");
}

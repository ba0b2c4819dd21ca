//! `[ap.proxy]`: the scenario section that puts a performance-enhancing
//! proxy at an AP: its serde shape, its checks and the registry of proxy
//! kinds ([`PROXIES`]). Each kind's file exports its [`Proxy`] descriptor
//! (its name, the keys it reads and how its agents are built from the
//! section); adding a kind is its file, its keys' fields here and rows in
//! `keys.rs`, and one entry in [`PROXIES`].
//!
//! Constants left out take the defaults of the proxy's own config struct
//! (the paper's values where paper 003 gives them); keys of another kind
//! are errors.
use serde::{Deserialize, Serialize};
use wifitcp_core::RngStream;
use wifitcp_net::Agent;
use wifitcp_tcp::scenario::TcpSection;
use wifitcp_wire::Ipv4Addr;

/// The registered proxy kinds, in the order messages list them.
pub static PROXIES: &[Proxy] = &[NONE, crate::snoop::PROXY, crate::itcp::PROXY, crate::dproxy::PROXY];

/// No proxy (lets a sweep compare "none" with the proxies).
const NONE: Proxy = Proxy { name: "none", keys: &[], build: |_, _| None };

/// One proxy kind.
pub struct Proxy {
    /// Its `ap.proxy.kind` name.
    pub name: &'static str,
    /// The keys of the section it reads besides `kind` and `node`.
    pub keys: &'static [&'static str],
    /// Its agents at one AP (None: no agent), from a checked section.
    pub build: fn(&ProxyConfig, &Site) -> Option<Installed>,
}

/// Where a proxy is installed: one AP and the stations associated with it.
pub struct Site<'a> {
    pub ap: Ipv4Addr,
    pub stations: &'a [Ipv4Addr],
    /// The scenario's `[tcp]` (under the proxy's own TCP tables).
    pub tcp: &'a TcpSection,
    /// The stream the proxy draws from (`proxy/<AP name>`).
    pub rng: RngStream,
}

/// A proxy's agents: the AP's and, for a proxy with a station half, one per
/// station of [`Site::stations`] in order (empty otherwise).
pub struct Installed {
    pub ap: Box<dyn Agent>,
    pub stations: Vec<Box<dyn Agent>>,
}

/// What a node named in `ap.proxy.node` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Ap,
    Station,
    /// A wired host or router.
    Wired,
    Unknown,
}

/// A registered proxy kind, written as its name.
#[derive(Clone, Copy)]
pub struct ProxyKind(&'static Proxy);

impl ProxyKind {
    /// The registered kind called `name`.
    pub fn named(name: &str) -> Option<ProxyKind> {
        PROXIES.iter().find(|p| p.name == name).map(ProxyKind)
    }
    pub fn name(self) -> &'static str {
        self.0.name
    }
    pub fn proxy(self) -> &'static Proxy {
        self.0
    }
}

impl PartialEq for ProxyKind {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for ProxyKind {}

impl std::fmt::Debug for ProxyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ProxyKind({:?})", self.0.name)
    }
}

impl Serialize for ProxyKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

/// Milliseconds of a scenario key as a duration.
pub(crate) fn ms(x: f64) -> wifitcp_core::SimDur {
    wifitcp_core::SimDur::from_secs_f64(x / 1e3)
}

/// The registered names, in registration order (for serde's message).
pub fn kinds() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| PROXIES.iter().map(|p| p.name).collect())
}

impl<'de> Deserialize<'de> for ProxyKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // A name, or serde's externally tagged form of a unit variant
        // (`{"name": null}`, JSON only), which the derived enum accepted.
        let name = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => s,
            serde_json::Value::Object(m) if m.len() == 1 => {
                let (s, v) = m.into_iter().next().expect("one entry");
                if ProxyKind::named(&s).is_some() && !v.is_null() {
                    return Err(D::Error::custom(format!("{s}: invalid type: {v}, expected unit")));
                }
                s
            }
            // serde_json's words for a non-string where it expects a unit variant
            _ => return Err(D::Error::custom("expected value")),
        };
        ProxyKind::named(&name).ok_or_else(|| D::Error::unknown_variant(&name, kinds()))
    }
}

/// `[ap.proxy]`: a performance-enhancing proxy at the AP, and for D-Proxy
/// its station half at every station of that AP.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProxyConfig {
    pub kind: ProxyKind,
    /// The AP to run at (a BSS member's name); default: every AP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_rto_min_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_rto_initial_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_local_retransmissions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_buffer_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wired_tcp: Option<TcpSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wireless_tcp: Option<TcpSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerequest_multipliers: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catchup_packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rtx_time_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_port: Option<u16>,
}

impl ProxyConfig {
    /// The constants each kind takes (besides `kind` and `node`).
    fn keys_set(&self) -> Vec<&'static str> {
        let mut k = Vec::new();
        let mut add = |name: &'static str, set: bool| {
            if set {
                k.push(name)
            }
        };
        add("cache_packets", self.cache_packets.is_some());
        add("local_rto_min_ms", self.local_rto_min_ms.is_some());
        add("local_rto_initial_ms", self.local_rto_initial_ms.is_some());
        add("max_local_retransmissions", self.max_local_retransmissions.is_some());
        add("relay_buffer_bytes", self.relay_buffer_bytes.is_some());
        add("wired_tcp", self.wired_tcp.is_some());
        add("wireless_tcp", self.wireless_tcp.is_some());
        add("buffer_packets", self.buffer_packets.is_some());
        add("rerequest_multipliers", self.rerequest_multipliers.is_some());
        add("catchup_packets", self.catchup_packets.is_some());
        add("initial_rtx_time_ms", self.initial_rtx_time_ms.is_some());
        add("request_port", self.request_port.is_some());
        k
    }

    /// Keys of kind `kind`.
    pub fn kind_keys(kind: ProxyKind) -> &'static [&'static str] {
        kind.0.keys
    }

    /// Errors are "key: reason" (under `ap.proxy`). `tcp`: the scenario's
    /// `[tcp]`, under the two I-TCP connections' tables; `place`: what the
    /// scenario's node of a name is.
    pub fn validate(&self, tcp: &TcpSection, place: &dyn Fn(&str) -> Place) -> Result<(), String> {
        let allowed = Self::kind_keys(self.kind);
        if let Some(k) = self.keys_set().into_iter().find(|k| !allowed.contains(k)) {
            return Err(format!("{k}: not a key of kind {:?} (its keys: {})", self.kind.name(), allowed.join(", ")));
        }
        if let Some(n) = &self.node {
            match place(n) {
                Place::Station => return Err(format!("node: {n:?} is a station; a proxy runs at an AP")),
                Place::Ap => {}
                Place::Wired => return Err(format!("node: {n:?} has no wireless interface (a proxy runs at an AP)")),
                Place::Unknown => return Err(format!("node: no node named {n:?}")),
            }
        }
        if self.buffer_packets == Some(0) || self.cache_packets == Some(0) || self.catchup_packets == Some(0) {
            return Err("buffer_packets, cache_packets, catchup_packets: must be at least 1".into());
        }
        if self.relay_buffer_bytes == Some(0) {
            return Err("relay_buffer_bytes: must be at least 1".into());
        }
        if let Some(m) = &self.rerequest_multipliers {
            if m.is_empty() {
                return Err("rerequest_multipliers: must list at least one multiplier".into());
            }
            if m.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("rerequest_multipliers: must be strictly increasing, got {m:?}"));
            }
        }
        for (name, t) in [("wired_tcp", &self.wired_tcp), ("wireless_tcp", &self.wireless_tcp)] {
            if let Some(t) = t {
                wifitcp_tcp::scenario::build(&t.clone().over(tcp)).map_err(|e| format!("{name}.{e}"))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<ProxyConfig, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn kinds_are_the_registered_names() {
        assert_eq!(kinds(), ["none", "snoop", "itcp", "dproxy"]);
        let p = parse(r#"{"kind": "snoop", "cache_packets": 10}"#).unwrap();
        assert_eq!(p.kind.name(), "snoop");
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"kind":"snoop","cache_packets":10}"#);
        let e = parse(r#"{"kind": "pep"}"#).unwrap_err();
        assert!(e.starts_with("unknown variant `pep`, expected one of `none`, `snoop`, `itcp`, `dproxy`"), "{e}");
    }

    #[test]
    fn keys_of_another_kind_and_bad_nodes_are_errors() {
        let tcp = TcpSection::default();
        let ap = |_: &str| Place::Ap;
        let p = parse(r#"{"kind": "snoop", "relay_buffer_bytes": 1000}"#).unwrap();
        let e = p.validate(&tcp, &ap).unwrap_err();
        assert!(e.starts_with("relay_buffer_bytes: not a key of kind \"snoop\" (its keys: cache_packets"), "{e}");
        let p = parse(r#"{"kind": "dproxy", "node": "sta0"}"#).unwrap();
        assert_eq!(
            p.validate(&tcp, &|_| Place::Station).unwrap_err(),
            "node: \"sta0\" is a station; a proxy runs at an AP"
        );
        assert!(p.validate(&tcp, &ap).is_ok());
        let p = parse(r#"{"kind": "dproxy", "rerequest_multipliers": [2.0, 1.0]}"#).unwrap();
        assert!(p.validate(&tcp, &ap).unwrap_err().starts_with("rerequest_multipliers: must be strictly increasing"));
    }

    #[test]
    fn each_kind_builds_its_agents() {
        let stations = [Ipv4Addr::from(0x0a00_0002), Ipv4Addr::from(0x0a00_0003)];
        let tcp = TcpSection::default();
        let site = |seed| Site {
            ap: Ipv4Addr::from(0x0a00_0001),
            stations: &stations,
            tcp: &tcp,
            rng: RngStream::derive(seed, "p"),
        };
        for (kind, station_agents) in [("none", None), ("snoop", Some(0)), ("itcp", Some(0)), ("dproxy", Some(2))] {
            let p = parse(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            let got = (p.kind.proxy().build)(&p, &site(1)).map(|i| i.stations.len());
            assert_eq!(got, station_agents, "{kind}");
        }
    }
}

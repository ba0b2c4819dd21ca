//! `[ap.proxy]`: the scenario section that puts a performance-enhancing
//! proxy at an AP. `kind` selects one of the kinds registered in
//! [`ProxyConfig`]; each kind's file declares its table (its keys with
//! their defaults, ranges and units, `wifitcp_core::config_table!`, the
//! defaults taken from the proxy's own config struct, the paper's values
//! where paper 003 gives them) and implements [`ProxyKind`] for it (its
//! checks and how its agents are built). Adding a kind is its file and one
//! line in the registration list below.
//!
//! Invariant: every kind's table holds `node` (the AP to run at,
//! [`site_keys`]); a key of another kind is an error naming the table's
//! keys.
use wifitcp_core::config::ConfigError;
use wifitcp_core::RngStream;
use wifitcp_net::Agent;
use wifitcp_tcp::scenario::TcpSection;
use wifitcp_wire::Ipv4Addr;

wifitcp_core::config_kinds! {
    /// `[ap.proxy]`: a performance-enhancing proxy at the AP, and for
    /// D-Proxy its station half at every station of that AP.
    pub enum ProxyConfig: tag "kind", dyn ProxyKind {
        /// No proxy (lets a sweep compare "none" with the proxies).
        "none" => None(NoneTable),
        /// Snoop (Balakrishnan et al. 1995).
        "snoop" => Snoop(crate::snoop::SnoopTable),
        /// Split TCP (I-TCP, Bakre & Badrinath 1995).
        "itcp" => Itcp(crate::itcp::ItcpTable),
        /// D-Proxy (paper 003), also at every station.
        "dproxy" => Dproxy(crate::dproxy::DproxyTable),
    }
}

/// One proxy kind: its checks and its agents.
pub trait ProxyKind {
    /// The AP to run at (`node`); `None`: every AP.
    fn node(&self) -> Option<&str>;
    /// Checks of its keys; paths relative to `ap.proxy`. `tcp`: the
    /// scenario's `[tcp]`, under the proxy's own TCP tables.
    fn check(&self, _tcp: &TcpSection) -> Result<(), ConfigError> {
        Ok(())
    }
    /// Its agents at one AP (None: no agent), from a checked table.
    fn build(&self, site: &Site) -> Option<Installed>;
}

wifitcp_core::config_group! {
    /// Where a proxy runs: every kind's table holds it.
    macro site_keys {
        /// The AP (BSS member name) to run at.
        #[key(default = "every AP")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub node: Option<String> = None,
    }
}

wifitcp_core::config_table! {
    /// `kind = "none"`.
    #[serde(deny_unknown_fields)]
    pub struct NoneTable {
        use site_keys;
    }
}

impl ProxyKind for NoneTable {
    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
    fn build(&self, _: &Site) -> Option<Installed> {
        None
    }
}

/// A count of a table that must be at least one.
pub(crate) fn at_least_one(key: &str, x: u64) -> Result<(), ConfigError> {
    wifitcp_core::config::check(x >= 1, key, "must be at least 1")
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

/// Milliseconds of a scenario key as a duration.
pub(crate) fn ms(x: f64) -> wifitcp_core::SimDur {
    wifitcp_core::SimDur::from_secs_f64(x / 1e3)
}

impl ProxyConfig {
    /// The AP to run at (`node`); `None`: every AP.
    pub fn node(&self) -> Option<&str> {
        self.get().node()
    }

    /// Errors are "key: reason" (under `ap.proxy`). `tcp`: the scenario's
    /// `[tcp]`, under the two I-TCP connections' tables; `place`: what the
    /// scenario's node of a name is.
    pub fn validate(&self, tcp: &TcpSection, place: &dyn Fn(&str) -> Place) -> Result<(), ConfigError> {
        if let Some(n) = self.node() {
            match place(n) {
                Place::Station => {
                    return Err(ConfigError::new("node", format!("{n:?} is a station; a proxy runs at an AP")))
                }
                Place::Ap => {}
                Place::Wired => {
                    return Err(ConfigError::new(
                        "node",
                        format!("{n:?} has no wireless interface (a proxy runs at an AP)"),
                    ))
                }
                Place::Unknown => return Err(ConfigError::new("node", format!("no node named {n:?}"))),
            }
        }
        self.get().check(tcp)
    }

    /// Its agents at one AP (None: no agent).
    pub fn build(&self, site: &Site) -> Option<Installed> {
        self.get().build(site)
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
        assert_eq!(ProxyConfig::KINDS, ["none", "snoop", "itcp", "dproxy"]);
        let p = parse(r#"{"kind": "snoop", "cache_packets": 10}"#).unwrap();
        assert_eq!(p.kind(), "snoop");
        let j = serde_json::to_value(&p).unwrap();
        assert_eq!((j["kind"].as_str(), j["cache_packets"].as_u64()), (Some("snoop"), Some(10)));
        assert!(j.get("node").is_none() && j.get("relay_buffer_bytes").is_none(), "{j}");
        let e = parse(r#"{"kind": "pep"}"#).unwrap_err();
        assert!(e.starts_with("unknown variant `pep`, expected one of `none`, `snoop`, `itcp`, `dproxy`"), "{e}");
        assert!(parse(r#"{"cache_packets": 10}"#).unwrap_err().starts_with("missing field `kind`"));
        for kind in ProxyConfig::KINDS {
            let c: ProxyConfig = serde_json::from_value(serde_json::json!({ "kind": kind })).unwrap();
            let back: ProxyConfig = serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
            assert_eq!(back, c);
        }
    }

    #[test]
    fn keys_of_another_kind_and_bad_nodes_are_errors() {
        let tcp = TcpSection::default();
        let ap = |_: &str| Place::Ap;
        let e = parse(r#"{"kind": "snoop", "relay_buffer_bytes": 1000}"#).unwrap_err();
        assert!(e.starts_with("unknown field `relay_buffer_bytes`"), "{e}");
        let p = parse(r#"{"kind": "dproxy", "node": "sta0"}"#).unwrap();
        assert_eq!(
            p.validate(&tcp, &|_| Place::Station).unwrap_err().to_string(),
            "node: \"sta0\" is a station; a proxy runs at an AP"
        );
        assert!(p.validate(&tcp, &ap).is_ok());
        let p = parse(r#"{"kind": "dproxy", "rerequest_multipliers": [2.0, 1.0]}"#).unwrap();
        assert!(p
            .validate(&tcp, &ap)
            .unwrap_err()
            .to_string()
            .starts_with("rerequest_multipliers: must be strictly increasing"));
        let p = parse(r#"{"kind": "snoop", "cache_packets": 0}"#).unwrap();
        assert_eq!(p.validate(&tcp, &ap).unwrap_err().to_string(), "cache_packets: must be at least 1");
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
            let got = p.build(&site(1)).map(|i| i.stations.len());
            assert_eq!(got, station_agents, "{kind}");
        }
    }

    #[test]
    fn table_defaults_are_the_proxies_own() {
        use wifitcp_core::config::explicit_defaults_agree;
        explicit_defaults_agree::<crate::snoop::SnoopTable>().unwrap();
        explicit_defaults_agree::<crate::itcp::ItcpTable>().unwrap();
        explicit_defaults_agree::<crate::dproxy::DproxyTable>().unwrap();
        let rows = ProxyConfig::keys();
        let cache: Vec<_> = rows.iter().filter(|k| k.path == "cache_packets").map(|k| (k.when, k.default)).collect();
        assert_eq!(cache, [(&["snoop"][..], "150"), (&["dproxy"][..], "512")]);
    }
}

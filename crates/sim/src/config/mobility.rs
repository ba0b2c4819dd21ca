//! `[[wlan.mobility]]`: how stations move (stations in no entry stand
//! still at `wlan.positions` / `wlan.distance_m`), its validation and the
//! [`Mobility`] models it builds.
//!
//! ```toml
//! # walk away from the AP at 50 km/h from t = 1 s (paper 002's speeds)
//! [[wlan.mobility]]
//! stations = [0]
//! model = "linear"
//! speed_mps = 13.89
//! start_s = 1.0            # default 0
//! # heading_deg = 0.0      # default: straight away from the station's AP
//! # stop_s = 30.0          # default: walks on to the end of the run
//!
//! # constant velocity between timed waypoints [t_s, x_m, y_m]
//! [[wlan.mobility]]
//! stations = [1]
//! model = "waypoints"
//! waypoints = [[0.0, 5.0, 0.0], [10.0, 50.0, 0.0], [20.0, 50.0, 30.0]]
//!
//! # random waypoint in a rectangle [[x_min, y_min], [x_max, y_max]]
//! [[wlan.mobility]]
//! stations = "all"
//! model = "random_waypoint"
//! area_m = [[-50.0, -50.0], [50.0, 50.0]]
//! speed_min_mps = 0.56     # 2 km/h
//! speed_max_mps = 13.89    # 50 km/h
//! pause_s = 2.0            # default 0
//! ```
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, B, POS_M, SIM_S};
use wifitcp_core::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wifi::channel::Position;
use wifitcp_wifi::mobility::{Mobility, RandomWaypoint, RandomWaypointParams, Waypoint, Waypoints};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MobilityKind {
    /// Constant velocity from the station's position.
    Linear,
    /// Constant velocity between timed waypoints.
    Waypoints,
    /// Random waypoint in a rectangle.
    RandomWaypoint,
}

impl MobilityKind {
    fn name(self) -> &'static str {
        match self {
            MobilityKind::Linear => "linear",
            MobilityKind::Waypoints => "waypoints",
            MobilityKind::RandomWaypoint => "random_waypoint",
        }
    }
}

/// One `[[wlan.mobility]]` entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobilityConfig {
    /// "all" or a list of 0-based station indices.
    #[serde(default = "super::d_all")]
    pub stations: serde_json::Value,
    pub model: MobilityKind,
    /// waypoints: [[t_s, x_m, y_m], ...], times strictly increasing.
    #[serde(default)]
    pub waypoints: Option<Vec<[f64; 3]>>,
    /// linear: speed in m/s.
    #[serde(default)]
    pub speed_mps: Option<f64>,
    /// linear: direction, degrees counter-clockwise from +x (default: away
    /// from the station's AP).
    #[serde(default)]
    pub heading_deg: Option<f64>,
    /// linear: when the walk starts (s).
    #[serde(default)]
    pub start_s: Option<f64>,
    /// linear: when it stops (s; default: the run's end).
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// random_waypoint: [[x_min, y_min], [x_max, y_max]] in metres.
    #[serde(default)]
    pub area_m: Option<Vec<[f64; 2]>>,
    #[serde(default)]
    pub speed_min_mps: Option<f64>,
    #[serde(default)]
    pub speed_max_mps: Option<f64>,
    /// random_waypoint: pause at each destination (s); 0.
    #[serde(default)]
    pub pause_s: Option<f64>,
}

impl MobilityConfig {
    /// Keys this entry sets that its model does not use.
    fn stray_key(&self) -> Option<&'static str> {
        let set = [
            ("waypoints", self.waypoints.is_some(), MobilityKind::Waypoints),
            ("speed_mps", self.speed_mps.is_some(), MobilityKind::Linear),
            ("heading_deg", self.heading_deg.is_some(), MobilityKind::Linear),
            ("start_s", self.start_s.is_some(), MobilityKind::Linear),
            ("stop_s", self.stop_s.is_some(), MobilityKind::Linear),
            ("area_m", self.area_m.is_some(), MobilityKind::RandomWaypoint),
            ("speed_min_mps", self.speed_min_mps.is_some(), MobilityKind::RandomWaypoint),
            ("speed_max_mps", self.speed_max_mps.is_some(), MobilityKind::RandomWaypoint),
            ("pause_s", self.pause_s.is_some(), MobilityKind::RandomWaypoint),
        ];
        set.iter().find(|(_, on, kind)| *on && *kind != self.model).map(|(k, _, _)| *k)
    }

    fn rwp_params(&self) -> RandomWaypointParams {
        let a = self.area_m.as_deref().unwrap_or(&[]);
        let corner = |i: usize| a.get(i).map_or((0.0, 0.0), |c| (c[0], c[1]));
        RandomWaypointParams {
            min: corner(0),
            max: corner(1),
            speed_min: self.speed_min_mps.unwrap_or(0.0),
            speed_max: self.speed_max_mps.unwrap_or(0.0),
            pause: SimDur::from_secs_f64(self.pause_s.unwrap_or(0.0)),
        }
    }

    /// Checks the entry (`p` is its dotted path); the scenario checks the
    /// station list and the ranges.
    pub fn validate(&self, p: &str, duration_s: f64) -> Result<(), ConfigError> {
        if let Some(k) = self.stray_key() {
            return Err(ConfigError::new(format!("{p}.{k}"), format!("not used by model \"{}\"", self.model.name())));
        }
        match self.model {
            MobilityKind::Linear => {
                let v = self
                    .speed_mps
                    .ok_or_else(|| ConfigError::new(format!("{p}.speed_mps"), "required for model \"linear\""))?;
                if !(v.is_finite() && v >= 0.0) {
                    return Err(ConfigError::new(format!("{p}.speed_mps"), format!("must be >= 0, got {v}")));
                }
                let start = self.start_s.unwrap_or(0.0);
                if !(start.is_finite() && start >= 0.0 && start < duration_s) {
                    return Err(ConfigError::new(
                        format!("{p}.start_s"),
                        format!("must be in [0, duration_s), got {start}"),
                    ));
                }
                if let Some(stop) = self.stop_s {
                    if !(stop.is_finite() && stop > start) {
                        return Err(ConfigError::new(
                            format!("{p}.stop_s"),
                            format!("must be after start_s ({start} s), got {stop}"),
                        ));
                    }
                }
            }
            MobilityKind::Waypoints => {
                let w = self
                    .waypoints
                    .as_ref()
                    .ok_or_else(|| ConfigError::new(format!("{p}.waypoints"), "required for model \"waypoints\""))?;
                if w.is_empty() {
                    return Err(ConfigError::new(format!("{p}.waypoints"), "needs at least one [t_s, x_m, y_m]"));
                }
                if w[0][0] < 0.0 {
                    return Err(ConfigError::new(
                        format!("{p}.waypoints[0]"),
                        format!("time {} s is negative", w[0][0]),
                    ));
                }
                // compared in the integer nanoseconds the run uses
                let ns = |t: f64| SimTime::from_secs_f64(t);
                if let Some(i) = (1..w.len()).find(|&i| ns(w[i][0]) <= ns(w[i - 1][0])) {
                    return Err(ConfigError::new(
                        format!("{p}.waypoints[{i}]"),
                        format!(
                            "time {} s is not after the previous waypoint's {} s (times must increase)",
                            w[i][0],
                            w[i - 1][0]
                        ),
                    ));
                }
            }
            MobilityKind::RandomWaypoint => {
                match &self.area_m {
                    Some(a) if a.len() == 2 => {}
                    Some(a) => {
                        return Err(ConfigError::new(
                            format!("{p}.area_m"),
                            format!("needs 2 corners [[x_min, y_min], [x_max, y_max]], got {}", a.len()),
                        ))
                    }
                    None => {
                        return Err(ConfigError::new(format!("{p}.area_m"), "required for model \"random_waypoint\""))
                    }
                }
                for k in ["speed_min_mps", "speed_max_mps"] {
                    let v = if k == "speed_min_mps" { self.speed_min_mps } else { self.speed_max_mps };
                    if v.is_none() {
                        return Err(ConfigError::new(format!("{p}.{k}"), "required for model \"random_waypoint\""));
                    }
                }
                if let Some(why) = self.rwp_params().check() {
                    let key = if why.contains("area") {
                        "area_m"
                    } else if why.starts_with("speed_max") {
                        "speed_max_mps"
                    } else {
                        "speed_min_mps"
                    };
                    return Err(ConfigError::new(format!("{p}.{key}"), why.to_string()));
                }
            }
        }
        Ok(())
    }

    /// The model of one station starting at `start`, whose AP is at `ap`;
    /// the run ends at `end_s`. The entry was validated.
    pub fn build(&self, start: Position, ap: Position, end_s: f64, rng: RngStream) -> Box<dyn Mobility> {
        match self.model {
            MobilityKind::Linear => {
                let v = self.speed_mps.unwrap_or(0.0);
                let h = match self.heading_deg {
                    Some(deg) => deg.to_radians(),
                    None if start.x == ap.x && start.y == ap.y => 0.0,
                    None => (start.y - ap.y).atan2(start.x - ap.x),
                };
                let t0 = self.start_s.unwrap_or(0.0);
                let t1 = self.stop_s.unwrap_or(end_s).max(t0 + 1e-9);
                let d = v * (t1 - t0);
                let end = Position::new(start.x + d * h.cos(), start.y + d * h.sin(), start.z);
                let wp = |t: f64, pos| Waypoint { time: SimTime::from_secs_f64(t), pos };
                Box::new(Waypoints::new(vec![wp(t0, start), wp(t1, end)]).expect("t1 > t0"))
            }
            MobilityKind::Waypoints => {
                let w = self.waypoints.as_deref().unwrap_or(&[]);
                let points = w
                    .iter()
                    .map(|p| Waypoint { time: SimTime::from_secs_f64(p[0]), pos: Position::new(p[1], p[2], start.z) });
                Box::new(Waypoints::new(points.collect()).expect("validated"))
            }
            MobilityKind::RandomWaypoint => Box::new(RandomWaypoint::new(self.rwp_params(), start, rng)),
        }
    }
}

/// Node speeds in m/s: walking to aircraft, generously (0 stands still).
const SPEED: Option<(B, B)> = r(In(0.0), In(1e3));

/// The keys of one `[[wlan.mobility]]` entry, relative to it (mounted by
/// `super::wlan::keys`).
pub static KEYS: &[Key] = &[
    k("stations", Any, "\"all\"", r(In(0.0), In(99999.0)), "station index", "\"all\" or 0-based indices."),
    k("model", Str, "required", None, "", "\"linear\", \"waypoints\" or \"random_waypoint\"."),
    k("waypoints", Floats, "none", POS_M, "s, m", "waypoints: [[t_s, x, y], ...], times increasing."),
    k("speed_mps", Float, "none", SPEED, "m/s", "linear: speed (2-50 km/h = 0.56-13.89 m/s)."),
    k("heading_deg", Float, "away from the AP", r(In(-360.0), In(360.0)), "deg", "linear: direction from +x."),
    k("start_s", Float, "0.0", SIM_S, "s", "linear: when the walk starts; < duration_s."),
    k("stop_s", Float, "the run's end", r(Ex(0.0), In(1e6)), "s", "linear: when it stops."),
    k("area_m", Floats, "none", POS_M, "m", "random_waypoint: [[x_min, y_min], [x_max, y_max]]."),
    k("speed_min_mps", Float, "none", r(Ex(0.0), In(1e3)), "m/s", "random_waypoint: lowest speed (> 0)."),
    k("speed_max_mps", Float, "none", r(Ex(0.0), In(1e3)), "m/s", "random_waypoint: highest speed."),
    k("pause_s", Float, "0.0", SIM_S, "s", "random_waypoint: pause at each destination."),
];

#[cfg(test)]
mod tests {
    use crate::config::Scenario;

    fn doc(channel: &str, mobility: &str) -> String {
        format!(
            r#"{{"scenario": {{"name": "x", "duration_s": 20}}, "phy": {{"standard": "802.11g", "data_rate_mbps": 24}},
                "wlan": {{"stations": 2, "distance_m": 5, "mobility": [{mobility}]}}{channel}}}"#
        )
    }
    const SNR: &str = r#", "channel": {"model": "snr"}"#;

    fn err(mobility: &str) -> String {
        Scenario::from_json(&doc(SNR, mobility)).unwrap_err().to_string()
    }

    #[test]
    fn valid_entries_parse() {
        for m in [
            r#"{"stations": [0], "model": "linear", "speed_mps": 13.89}"#,
            r#"{"stations": [0], "model": "linear", "speed_mps": 0.56, "heading_deg": 90, "start_s": 1, "stop_s": 5}"#,
            r#"{"stations": [1], "model": "waypoints", "waypoints": [[0, 5, 0], [10, 50, 0]]}"#,
            r#"{"model": "random_waypoint", "area_m": [[-50, -50], [50, 50]], "speed_min_mps": 0.56, "speed_max_mps": 13.89, "pause_s": 2}"#,
        ] {
            Scenario::from_json(&doc(SNR, m)).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
    }

    #[test]
    fn bad_entries_are_one_error_naming_the_key() {
        let e = err(r#"{"stations": [0], "model": "waypoints", "waypoints": [[0, 5, 0], [10, 50, 0], [4, 60, 0]]}"#);
        assert_eq!(
            e,
            "wlan.mobility[0].waypoints[2]: time 4 s is not after the previous waypoint's 10 s (times must increase)"
        );
        let e = err(r#"{"stations": [0], "model": "linear", "speed_mps": -1}"#);
        assert!(e.starts_with("wlan.mobility[0].speed_mps: must be in [0, 1000] m/s, got -1"), "{e}");
        let e =
            err(r#"{"model": "random_waypoint", "area_m": [[0, 0], [9, 9]], "speed_min_mps": 5, "speed_max_mps": 2}"#);
        assert_eq!(e, "wlan.mobility[0].speed_max_mps: speed_max is below speed_min");
        let e =
            err(r#"{"model": "random_waypoint", "area_m": [[0, 0], [9, 9]], "speed_min_mps": -2, "speed_max_mps": 2}"#);
        assert!(e.starts_with("wlan.mobility[0].speed_min_mps: must be in (0, 1000] m/s"), "{e}");
        let e =
            err(r#"{"model": "random_waypoint", "area_m": [[0, 0], [-9, 9]], "speed_min_mps": 1, "speed_max_mps": 2}"#);
        assert!(e.starts_with("wlan.mobility[0].area_m: "), "{e}");
        let e = err(r#"{"stations": [0], "model": "linear", "speed_mps": 1, "pause_s": 3}"#);
        assert_eq!(e, "wlan.mobility[0].pause_s: not used by model \"linear\"");
        let e = err(r#"{"stations": [0], "model": "linear"}"#);
        assert_eq!(e, "wlan.mobility[0].speed_mps: required for model \"linear\"");
        let e = err(r#"{"stations": [2], "model": "linear", "speed_mps": 1}"#);
        assert_eq!(e, "wlan.mobility[0].stations[0]: station 2 does not exist (wlan.stations = 2)");
        let e = err(
            r#"{"stations": [0], "model": "linear", "speed_mps": 1}, {"stations": "all", "model": "linear", "speed_mps": 2}"#,
        );
        assert_eq!(e, "wlan.mobility[1].stations: station 0 already moves by wlan.mobility[0]");
        let e = err(r#"{"stations": [0], "model": "walk"}"#);
        assert!(e.starts_with("wlan.mobility[0].model: unknown variant `walk`"), "{e}");
        let e = Scenario::from_json(&doc("", r#"{"stations": [0], "model": "linear", "speed_mps": 1}"#))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("wlan.mobility[0]: moving stations need a [channel]"), "{e}");
        // waypoints one nanosecond apart after rounding are one instant
        let e = err(r#"{"stations": [0], "model": "waypoints", "waypoints": [[1, 5, 0], [1.0000000001, 50, 0]]}"#);
        assert!(e.starts_with("wlan.mobility[0].waypoints[1]: time"), "{e}");
    }

    #[test]
    fn rate_control_keys() {
        for kind in ["fixed", "arf", "aarf", "minstrel"] {
            let d = doc(SNR, "")
                .replace(r#""data_rate_mbps": 24"#, &format!(r#""data_rate_mbps": 24, "rate_control": "{kind}""#));
            Scenario::from_json(&d).unwrap_or_else(|e| panic!("{kind}: {e}"));
        }
        let d = doc(SNR, "").replace(r#""data_rate_mbps": 24"#, r#""data_rate_mbps": 24, "rate_control": "onoe""#);
        assert!(Scenario::from_json(&d).unwrap_err().to_string().starts_with("phy.rate_control: unknown variant"));
    }
}

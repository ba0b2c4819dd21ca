//! Fixed frame error probabilities: per station and direction, and SNR
//! classes.
//!
//! An SNR class (Pokhrel & Williamson, *Modeling Compound TCP over WiFi for
//! IoT*, sec. III-B and Table I) is a group of stations that share one
//! wireless error probability p_w: "the probability that a MAC frame will
//! suffer from wireless channel error" for SNR class i. It applies to each
//! transmission attempt independently of collisions and of earlier
//! attempts (sec. IV-B, eq. 13: an AP attempt fails with probability
//! 1 - (1 - collision) * (1 - p_w); eq. 16: discard after k + 1 failed
//! attempts). Their Assumption 2 neglects errors on TCP ACKs and MAC ACKs;
//! here that is expressed by the direction (`per_up` = 0 for downloading
//! stations) and by the frame scope ([`FrameScope::Data`]: control frames
//! such as ACK, RTS and CTS are never hit).
//!
//! A station's class gives two probabilities: `per_down` for frames the
//! station receives (AP -> station in a BSS) and `per_up` for frames it
//! sends. For a frame from `tx` to `rx` the failure probability is
//! 1 - (1 - per_down(rx)) * (1 - per_up(tx)), the two ends failing
//! independently; a frame between two stations in no class uses the
//! default probability. A single station with its own numbers is a class
//! of one: that is the "fixed per-station per-direction PER".

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wifitcp_core::{NodeId, RngStream};

/// A frame error probability in [0, 1], applied per transmission attempt.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct FixedPer {
    p: f64,
}

impl FixedPer {
    /// An error-free link.
    pub const ZERO: FixedPer = FixedPer { p: 0.0 };

    /// `p` must be a number in [0, 1].
    pub fn new(p: f64) -> Result<Self, String> {
        if p.is_finite() && (0.0..=1.0).contains(&p) {
            Ok(FixedPer { p })
        } else {
            Err(format!("must be a probability in [0, 1], got {p}"))
        }
    }

    /// Failure probability.
    pub fn p(self) -> f64 {
        self.p
    }

    /// Success probability 1 - p.
    pub fn success_prob(self) -> f64 {
        1.0 - self.p
    }

    /// Draws one attempt: true if it gets through.
    pub fn attempt_succeeds(self, rng: &mut RngStream) -> bool {
        !rng.bernoulli(self.p)
    }
}

/// What a frame carries, for [`FrameScope`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrameKind {
    /// A data frame (carries an MSDU: TCP segments, TCP ACKs, UDP).
    Data,
    /// A control or management frame (ACK, RTS, CTS, beacon, poll).
    Control,
}

/// Which frames a fixed error probability hits.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameScope {
    /// Data frames only (default): short control frames are assumed
    /// protected, as in Pokhrel & Williamson's Assumption 2.
    #[default]
    Data,
    /// Every frame, control frames included.
    All,
}

impl FrameScope {
    pub fn covers(self, kind: FrameKind) -> bool {
        match self {
            FrameScope::All => true,
            FrameScope::Data => kind == FrameKind::Data,
        }
    }
}

/// One SNR class.
#[derive(Clone, PartialEq, Debug)]
pub struct SnrClass {
    pub name: String,
    /// Error probability of frames the member receives.
    pub per_down: FixedPer,
    /// Error probability of frames the member sends.
    pub per_up: FixedPer,
}

/// Stations grouped into SNR classes, plus the default for everyone else.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct SnrClasses {
    default: FixedPer,
    scope: FrameScope,
    classes: Vec<SnrClass>,
    member: BTreeMap<NodeId, usize>,
}

impl SnrClasses {
    /// No classes yet; `default` applies to every link.
    pub fn new(default: FixedPer, scope: FrameScope) -> Self {
        SnrClasses { default, scope, classes: Vec::new(), member: BTreeMap::new() }
    }

    /// Adds a class and returns its index.
    pub fn add_class(&mut self, class: SnrClass) -> usize {
        self.classes.push(class);
        self.classes.len() - 1
    }

    /// Puts `node` into class `class`. A node belongs to at most one class.
    pub fn assign(&mut self, node: NodeId, class: usize) -> Result<(), String> {
        if class >= self.classes.len() {
            return Err(format!("no SNR class with index {class}"));
        }
        if let Some(&c) = self.member.get(&node) {
            return Err(format!("node {} is already in SNR class '{}'", node.0, self.classes[c].name));
        }
        self.member.insert(node, class);
        Ok(())
    }

    pub fn classes(&self) -> &[SnrClass] {
        &self.classes
    }

    pub fn scope(&self) -> FrameScope {
        self.scope
    }

    pub fn default_per(&self) -> FixedPer {
        self.default
    }

    /// The class of `node`, if any.
    pub fn class_of(&self, node: NodeId) -> Option<&SnrClass> {
        self.member.get(&node).map(|&i| &self.classes[i])
    }

    /// Failure probability of one attempt of a `kind` frame from `tx` to
    /// `rx` (see the module documentation).
    pub fn link_per(&self, tx: NodeId, rx: NodeId, kind: FrameKind) -> f64 {
        if !self.scope.covers(kind) {
            return 0.0;
        }
        let down = self.class_of(rx).map(|c| c.per_down);
        let up = self.class_of(tx).map(|c| c.per_up);
        if down.is_none() && up.is_none() {
            return self.default.p();
        }
        let ok = down.unwrap_or(FixedPer::ZERO).success_prob() * up.unwrap_or(FixedPer::ZERO).success_prob();
        1.0 - ok
    }

    /// Success probability of one attempt.
    pub fn frame_success_prob(&self, tx: NodeId, rx: NodeId, kind: FrameKind) -> f64 {
        1.0 - self.link_per(tx, rx, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn per(p: f64) -> FixedPer {
        FixedPer::new(p).unwrap()
    }

    #[test]
    fn validation() {
        assert!(FixedPer::new(0.0).is_ok());
        assert!(FixedPer::new(1.0).is_ok());
        assert!(FixedPer::new(-0.1).is_err());
        assert!(FixedPer::new(1.5).is_err());
        assert!(FixedPer::new(f64::NAN).is_err());
    }

    #[test]
    fn empirical_failure_fraction() {
        // 100 000 independent attempts; binomial sd <= 0.0016, 1 % is 6 sd.
        for p in [0.0, 0.1, 0.3, 0.5, 1.0] {
            let f = per(p);
            let mut rng = RngStream::derive(2024, "test/fixed");
            let n = 100_000;
            let fails = (0..n).filter(|_| !f.attempt_succeeds(&mut rng)).count();
            let frac = fails as f64 / n as f64;
            assert!((frac - p).abs() < 0.01, "p = {p}: {frac}");
        }
    }

    #[test]
    fn attempts_are_independent() {
        // P(two consecutive failures) = p^2 for independent attempts.
        let f = per(0.3);
        let mut rng = RngStream::derive(5, "test/fixed");
        let draws: Vec<bool> = (0..200_000).map(|_| !f.attempt_succeeds(&mut rng)).collect();
        let pairs = draws.windows(2).filter(|w| w[0] && w[1]).count() as f64;
        let frac = pairs / (draws.len() - 1) as f64;
        assert!((frac - 0.09).abs() < 0.005, "{frac}");
    }

    #[test]
    fn deterministic_with_same_seed() {
        let run = || {
            let mut rng = RngStream::derive(77, "test/fixed");
            (0..64).map(|_| per(0.4).attempt_succeeds(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    fn two_class_bss() -> (SnrClasses, NodeId, [NodeId; 4]) {
        // Pokhrel & Williamson's set-up: class 1 p_w = 0, class 2 p_w = 0.3,
        // downloads only (per_up = 0), data frames only.
        let mut c = SnrClasses::new(FixedPer::ZERO, FrameScope::Data);
        let c1 = c.add_class(SnrClass { name: "class1".into(), per_down: per(0.0), per_up: per(0.0) });
        let c2 = c.add_class(SnrClass { name: "class2".into(), per_down: per(0.3), per_up: per(0.0) });
        let ap = NodeId(0);
        let stas = [NodeId(1), NodeId(2), NodeId(3), NodeId(4)];
        c.assign(stas[0], c1).unwrap();
        c.assign(stas[1], c1).unwrap();
        c.assign(stas[2], c2).unwrap();
        c.assign(stas[3], c2).unwrap();
        (c, ap, stas)
    }

    #[test]
    fn snr_classes_apply_p_w_by_class_and_direction() {
        let (c, ap, s) = two_class_bss();
        assert_eq!(c.link_per(ap, s[0], FrameKind::Data), 0.0);
        assert!((c.link_per(ap, s[2], FrameKind::Data) - 0.3).abs() < 1e-15);
        assert!((c.link_per(ap, s[3], FrameKind::Data) - 0.3).abs() < 1e-15);
        // Uplink TCP ACKs from class 2 are not hit (per_up = 0).
        assert_eq!(c.link_per(s[2], ap, FrameKind::Data), 0.0);
        // MAC ACKs (control) are never hit under the data scope.
        assert_eq!(c.link_per(ap, s[2], FrameKind::Control), 0.0);
        assert_eq!(c.class_of(s[3]).unwrap().name, "class2");
        assert!(c.class_of(ap).is_none());
    }

    #[test]
    fn snr_class_empirical_rate_per_attempt() {
        let (c, ap, s) = two_class_bss();
        let mut rng = RngStream::derive(11, "test/classes");
        let n = 100_000;
        let p = c.link_per(ap, s[2], FrameKind::Data);
        let fails = (0..n).filter(|_| rng.bernoulli(p)).count() as f64 / n as f64;
        assert!((fails - 0.3).abs() < 0.01, "{fails}");
    }

    #[test]
    fn both_ends_combine_independently_and_scope_all() {
        let mut c = SnrClasses::new(per(0.05), FrameScope::All);
        let a = c.add_class(SnrClass { name: "a".into(), per_down: per(0.2), per_up: per(0.1) });
        let b = c.add_class(SnrClass { name: "b".into(), per_down: per(0.4), per_up: per(0.5) });
        c.assign(NodeId(1), a).unwrap();
        c.assign(NodeId(2), b).unwrap();
        // 1 -> 2: up of 1 (0.1), down of 2 (0.4).
        let want = 1.0 - 0.9 * 0.6;
        assert!((c.link_per(NodeId(1), NodeId(2), FrameKind::Control) - want).abs() < 1e-15);
        // Neither end in a class: the default.
        assert_eq!(c.link_per(NodeId(7), NodeId(8), FrameKind::Data), 0.05);
        // One end in a class: only that end's probability.
        assert!((c.link_per(NodeId(7), NodeId(1), FrameKind::Data) - 0.2).abs() < 1e-15);
        assert!((c.frame_success_prob(NodeId(1), NodeId(7), FrameKind::Data) - 0.9).abs() < 1e-15);
    }

    #[test]
    fn a_node_is_in_one_class() {
        let (mut c, _, s) = two_class_bss();
        let err = c.assign(s[0], 1).unwrap_err();
        assert!(err.contains("class1"), "{err}");
        assert!(c.assign(NodeId(50), 9).is_err());
    }
}

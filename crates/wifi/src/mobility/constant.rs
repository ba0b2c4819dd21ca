//! A node that never moves (the default of every node: the World does not
//! even build this model for it; it exists for mixed sets of models).
use super::Mobility;
use crate::channel::Position;
use wifitcp_core::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantPosition(pub Position);

impl Mobility for ConstantPosition {
    fn position_at(&mut self, _now: SimTime) -> Position {
        self.0
    }
    fn next_change(&mut self, _now: SimTime) -> SimTime {
        SimTime::NEVER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_put() {
        let p = Position::new(3.0, -4.0, 1.5);
        let mut m = ConstantPosition(p);
        for s in [0, 1, 1000] {
            assert_eq!(m.position_at(SimTime::from_secs(s)), p);
        }
        assert_eq!(m.next_change(SimTime::ZERO), SimTime::NEVER);
    }
}

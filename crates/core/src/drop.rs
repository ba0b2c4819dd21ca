//! Typed reasons for which a packet leaves the network without delivery.
//! The packet ledger counts drops by these reasons.
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum DropReason {
    /// Interface/queue-discipline buffer full (drop-tail).
    QueueFull,
    /// A queue discipline's active-queue-management decision (e.g. CoDel).
    QueueAqm,
    /// Admission refused by a buffer-sharing policy (e.g. VBS).
    QueueAdmission,
    /// Removed as a redundant TCP ACK by an ACK filter.
    AckFiltered,
    /// MAC retry limit (short or long) exceeded (IEEE 802.11-2020 10.3.4.4).
    RetryLimit,
    /// Wired link transmit queue full.
    LinkQueueFull,
    /// No route to the destination.
    NoRoute,
    /// A new MSDU discarded by the receiver's duplicate filter (10.3.2.14):
    /// Retry set and the same sequence number as the last frame from that
    /// transmitter, after the 12-bit sequence counter wrapped.
    DuplicateFrame,
    /// Receiver had no socket or application for the packet.
    NoReceiver,
    /// Removed by a proxy or agent on purpose.
    Proxy,
    /// Sent in a frame with the No Ack policy (802.11-2020 9.2.4.5.4) that
    /// its receiver did not receive (collision or channel error): nobody
    /// retransmits it. Results list it only when it occurs (an optional
    /// feature's reason; every other reason is always listed).
    NoAckLost,
    /// Queued at an AP for a station that has since reassociated with
    /// another AP, and discarded there (`wlan.roaming.queued = "drop"`).
    /// Results list it only when it occurs.
    Handoff,
}

impl DropReason {
    pub const ALL: [DropReason; 12] = [
        DropReason::QueueFull,
        DropReason::QueueAqm,
        DropReason::QueueAdmission,
        DropReason::AckFiltered,
        DropReason::RetryLimit,
        DropReason::LinkQueueFull,
        DropReason::NoRoute,
        DropReason::DuplicateFrame,
        DropReason::NoReceiver,
        DropReason::Proxy,
        DropReason::NoAckLost,
        DropReason::Handoff,
    ];
    /// A reason of an optional feature: results list it only when it
    /// occurs (so results without the feature keep their shape).
    pub fn optional(self) -> bool {
        matches!(self, DropReason::NoAckLost | DropReason::Handoff)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::QueueAqm => "queue_aqm",
            DropReason::QueueAdmission => "queue_admission",
            DropReason::AckFiltered => "ack_filtered",
            DropReason::RetryLimit => "retry_limit",
            DropReason::LinkQueueFull => "link_queue_full",
            DropReason::NoRoute => "no_route",
            DropReason::DuplicateFrame => "duplicate_frame",
            DropReason::NoReceiver => "no_receiver",
            DropReason::Proxy => "proxy",
            DropReason::NoAckLost => "noack_lost",
            DropReason::Handoff => "handoff",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

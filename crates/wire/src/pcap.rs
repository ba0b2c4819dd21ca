//! Classic libpcap file writer with LINKTYPE_RAW (101): each record is one
//! IPv4 datagram as rendered by `Packet::to_bytes`.
use crate::packet::Packet;
use std::io::{self, Write};
use wifitcp_core::SimTime;

pub const LINKTYPE_RAW: u32 = 101;

pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(&0xa1b2_3c4du32.to_le_bytes())?; // nanosecond-resolution magic
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&65535u32.to_le_bytes())?;
        out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(PcapWriter { out })
    }
    pub fn write(&mut self, at: SimTime, p: &Packet) -> io::Result<()> {
        let b = p.to_bytes();
        let ns = at.as_nanos();
        self.out.write_all(&((ns / 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&((ns % 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&(b.len() as u32).to_le_bytes())?;
        self.out.write_all(&(b.len() as u32).to_le_bytes())?;
        self.out.write_all(&b)
    }
    pub fn into_inner(self) -> W {
        self.out
    }
}

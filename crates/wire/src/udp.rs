//! UDP header (RFC 768): 8 bytes.
pub const UDP_HEADER_LEN: u32 = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpHeader {
    pub src_port: u16,
    pub dst_port: u16,
}

//! The hasher of the (node, port) demultiplexing table.
/// Hasher of the demultiplexing table: its keys are (node, port) pairs
/// chosen by the simulator itself, so a multiplicative hash suffices (no
/// need for SipHash's flooding resistance on the per-packet path).
#[derive(Default, Clone, Copy)]
pub(crate) struct DemuxHash;
impl std::hash::BuildHasher for DemuxHash {
    type Hasher = MulHasher;
    fn build_hasher(&self) -> MulHasher {
        MulHasher(0)
    }
}
pub(crate) struct MulHasher(u64);
impl std::hash::Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u16(&mut self, x: u16) {
        self.write_u64(x as u64);
    }
}

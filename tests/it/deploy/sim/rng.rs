//! The simulation's random source: every draw of a seed's schedule comes from it, so a
//! seed replays the same way.

/// splitmix64: small, fast, deterministic.
#[derive(Clone)]
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

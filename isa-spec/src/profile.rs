//! Target profiles: memory sizes, id ranges, pipes.

use crate::Pipe;

/// A target profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProfileId {
    /// Ascend A2/A3 (910B/910C).
    A2A3,
    /// Ascend A5.
    A5,
}

impl ProfileId {
    /// Parses `a2a3`, `a2`, `a3`, `a5` (also the PTOAS `pto.target_arch` values).
    pub fn from_name(s: &str) -> Option<ProfileId> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a2a3" | "a2" | "a3" | "a2/a3" | "ascend910b" | "ascend910_93" => Some(ProfileId::A2A3),
            "a5" | "ascend950" => Some(ProfileId::A5),
            _ => None,
        }
    }

    /// Canonical name.
    pub fn name(self) -> &'static str {
        match self {
            ProfileId::A2A3 => "a2a3",
            ProfileId::A5 => "a5",
        }
    }

    /// The profile's facts.
    pub fn profile(self) -> &'static Profile {
        &PROFILES[self as usize]
    }
}

impl std::fmt::Display for ProfileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of profiles.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ProfileMask(pub u8);

impl ProfileMask {
    /// Both profiles.
    pub const BOTH: ProfileMask = ProfileMask(0b11);
    /// A2/A3 only.
    pub const A2A3: ProfileMask = ProfileMask(0b01);
    /// A5 only.
    pub const A5: ProfileMask = ProfileMask(0b10);

    /// Membership.
    pub fn contains(self, p: ProfileId) -> bool {
        self.0 & (1 << p as u8) != 0
    }
}

/// Facts about one target profile.
#[derive(Debug)]
pub struct Profile {
    /// Which profile.
    pub id: ProfileId,
    /// Unified buffer bytes per vector core.
    pub ub_bytes: usize,
    /// L1 (cbuf) bytes per cube core.
    pub l1_bytes: usize,
    /// L0A bytes.
    pub l0a_bytes: usize,
    /// L0B bytes.
    pub l0b_bytes: usize,
    /// L0C bytes.
    pub l0c_bytes: usize,
    /// Bias table bytes.
    pub bias_bytes: usize,
    /// FIXPIPE (scaling) buffer bytes.
    pub fb_bytes: usize,
    /// MX scale buffers (L0A/L0B scale) bytes each; 0 if absent.
    pub scale_bytes: usize,
    /// Number of set_flag/wait_flag event ids (0..n).
    pub event_ids: u32,
    /// Number of get_buf/rls_buf buffer ids.
    pub buf_ids: u32,
    /// Cross-core semaphore ids addressable by the profile's cross-core ops.
    pub cross_core_ids: u32,
    /// Pipes the profile has.
    pub pipes: &'static [Pipe],
    /// Vector register bytes.
    pub vreg_bytes: usize,
}

const ALL_PIPES: &[Pipe] = &[
    Pipe::S,
    Pipe::V,
    Pipe::M,
    Pipe::Mte1,
    Pipe::Mte2,
    Pipe::Mte3,
    Pipe::Fix,
    Pipe::All,
];

/// The profiles, indexed by [`ProfileId`].
pub static PROFILES: [Profile; 2] = [
    Profile {
        id: ProfileId::A2A3,
        ub_bytes: 192 * 1024,
        l1_bytes: 512 * 1024,
        l0a_bytes: 64 * 1024,
        l0b_bytes: 64 * 1024,
        l0c_bytes: 128 * 1024,
        bias_bytes: 1024,
        fb_bytes: 2048,
        scale_bytes: 0,
        event_ids: 16,
        buf_ids: 32,
        cross_core_ids: 16,
        pipes: ALL_PIPES,
        vreg_bytes: 256,
    },
    Profile {
        id: ProfileId::A5,
        ub_bytes: 256 * 1024,
        l1_bytes: 512 * 1024,
        l0a_bytes: 64 * 1024,
        l0b_bytes: 64 * 1024,
        l0c_bytes: 256 * 1024,
        bias_bytes: 4096,
        fb_bytes: 4096,
        scale_bytes: 4096,
        event_ids: 16,
        buf_ids: 32,
        cross_core_ids: 32,
        pipes: ALL_PIPES,
        vreg_bytes: 256,
    },
];

//! `--jit-cache DIR`: compiled regions persisted across runs.
//!
//! A region's code depends only on its Cranelift IR, the Cranelift version
//! and the host ISA's flags, so the cache key is exactly that text (`key`).
//! An entry is the key and the machine code; it is used only when its key
//! equals the new region's key byte for byte and its checksum holds, and only
//! code without relocations is stored (position independent: loading it is a
//! copy into fresh executable memory). Anything else (a missing, truncated,
//! stale or foreign file) is a miss: the region is compiled and the entry
//! rewritten. The directory must be trusted like the ptovm binary itself:
//! its files become executable code.
//!
//! File `<16 hex digits of the key's hash>.ptojit`: the magic `PTOJIT1\n`,
//! then the key length (u64 LE), the key, the code length (u64 LE), the code,
//! and an FNV-1a checksum of key and code (u64 LE).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"PTOJIT1\n";

static DIR: Mutex<Option<PathBuf>> = Mutex::new(None);
static LOADED: AtomicU64 = AtomicU64::new(0);
static STORED: AtomicU64 = AtomicU64::new(0);
static FAILED: AtomicU64 = AtomicU64::new(0);

/// What the persistent cache did in this process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Regions loaded from the directory instead of compiled.
    pub loaded: u64,
    /// Regions compiled and written to the directory.
    pub stored: u64,
    /// Entries that could not be written (the run goes on without them).
    pub failed: u64,
}

/// Persists compiled regions in `dir` from now on (`None`: stop). The
/// directory is created if missing; an error says why it cannot be used.
pub fn set_cache_dir(dir: Option<&Path>) -> std::io::Result<()> {
    if let Some(d) = dir {
        std::fs::create_dir_all(d)?;
        // a directory we cannot write is an error now, not a silent miss later
        let probe = d.join(format!(".ptojit-probe-{}", std::process::id()));
        std::fs::write(&probe, b"")?;
        let _ = std::fs::remove_file(&probe);
    }
    if let Ok(mut g) = DIR.lock() {
        *g = dir.map(Path::to_path_buf);
    }
    Ok(())
}

/// The counters so far.
pub fn cache_stats() -> CacheStats {
    CacheStats {
        loaded: LOADED.load(Ordering::Relaxed),
        stored: STORED.load(Ordering::Relaxed),
        failed: FAILED.load(Ordering::Relaxed),
    }
}

pub(crate) fn dir() -> Option<PathBuf> {
    DIR.lock().ok().and_then(|g| g.clone())
}

fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{:016x}.ptojit", fnv(&[key.as_bytes()])))
}

/// The code stored for `key`, if a valid entry exists.
pub(crate) fn load(dir: &Path, key: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path(dir, key)).ok()?;
    let code = parse(&bytes, key)?;
    LOADED.fetch_add(1, Ordering::Relaxed);
    Some(code)
}

/// Parses an entry; `None` unless it is whole, its key is `key` and its
/// checksum holds.
fn parse(bytes: &[u8], key: &str) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (klen, rest) = take_u64(rest)?;
    let klen = usize::try_from(klen).ok()?;
    let (k, rest) = (rest.get(..klen)?, rest.get(klen..)?);
    if k != key.as_bytes() {
        return None;
    }
    let (clen, rest) = take_u64(rest)?;
    let clen = usize::try_from(clen).ok()?;
    let (code, rest) = (rest.get(..clen)?, rest.get(clen..)?);
    let (sum, rest) = take_u64(rest)?;
    if !rest.is_empty() || code.is_empty() || sum != fnv(&[k, code]) {
        return None;
    }
    Some(code.to_vec())
}

fn take_u64(b: &[u8]) -> Option<(u64, &[u8])> {
    let (h, t) = (b.get(..8)?, b.get(8..)?);
    Some((u64::from_le_bytes(h.try_into().ok()?), t))
}

/// Writes an entry (atomically: a temporary file renamed over the old one).
pub(crate) fn store(dir: &Path, key: &str, code: &[u8]) {
    let mut out = Vec::with_capacity(key.len() + code.len() + 32);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(key.len() as u64).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(code.len() as u64).to_le_bytes());
    out.extend_from_slice(code);
    out.extend_from_slice(&fnv(&[key.as_bytes(), code]).to_le_bytes());
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".ptojit-{}-{}.tmp",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let ok = std::fs::write(&tmp, &out).is_ok() && std::fs::rename(&tmp, path(dir, key)).is_ok();
    if ok {
        STORED.fetch_add(1, Ordering::Relaxed);
    } else {
        let _ = std::fs::remove_file(&tmp);
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_anything_else_is_a_miss() {
        let d = std::env::temp_dir().join(format!("ptojit-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        let key = "cranelift 0.135.8\nfunction u0:0() {}";
        store(&d, key, &[0xc3, 0x90]);
        assert_eq!(load(&d, key), Some(vec![0xc3, 0x90]));
        // another key hashing elsewhere, or the same file under another key
        assert_eq!(load(&d, "other"), None);
        let bytes = std::fs::read(path(&d, key)).expect("written");
        assert_eq!(parse(&bytes, "other key"), None);
        // every truncation and every single flipped byte is rejected
        for n in 0..bytes.len() {
            assert_eq!(parse(&bytes[..n], key), None, "truncated to {n}");
            let mut b = bytes.clone();
            b[n] ^= 0x40;
            assert_eq!(parse(&b, key), None, "byte {n} flipped");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}

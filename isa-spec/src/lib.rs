//! `pto-isa-spec`: the one table of every PTO instruction and the target profiles.
//!
//! Everything else in ptovm (parser, verifier, encoder/decoder, disassembler,
//! interpreter dispatch, coverage) derives from [`OPS`] and [`Opcode`]. Adding an
//! instruction is one entry in `table.rs`; the compiler's exhaustive-match errors
//! then list every place that must handle it (see `docs/add-an-instruction.md`).

mod cost;
mod dtype;
mod enums;
mod profile;
mod sig;
mod table;

pub use cost::latency;
pub use dtype::{DType, DtypeRule, DtypeSet};
pub use enums::{Class, Form, ISet, Pipe, PipeRule};
pub use profile::{Profile, ProfileId, ProfileMask, PROFILES};
pub use sig::{OperandKind, Sig, SigError, SigSlot};
pub use table::{Opcode, OPS};

/// Static facts about one instruction.
#[derive(Debug)]
pub struct OpInfo {
    /// The opcode (index into [`OPS`]).
    pub opcode: Opcode,
    /// Canonical spelling, with dialect prefix (`pto.tadd`, `arith.addi`, `return`).
    pub name: &'static str,
    /// Other accepted spellings (`pto.copy_gm_to_ubuf` for `pto.mte_gm_ub`).
    pub aliases: &'static [&'static str],
    /// Instruction set the op belongs to.
    pub set: ISet,
    /// How the executing pipe is determined.
    pub pipe: PipeRule,
    /// Semantics class: which interpreter group executes it.
    pub class: Class,
    /// Textual form family used by the printer and the verifier.
    pub form: Form,
    /// Operand signature in the small DSL of [`sig`](Sig::parse).
    pub sig: &'static str,
    /// Element types accepted per profile.
    pub dtypes: DtypeRule,
    /// Profiles on which the op exists.
    pub profiles: ProfileMask,
    /// One-line semantics.
    pub summary: &'static str,
}

impl OpInfo {
    /// Parsed operand signature. The table is checked by a unit test, so this never
    /// fails for entries of [`OPS`]; a malformed signature yields the permissive one.
    pub fn signature(&self) -> Sig {
        Sig::parse(self.sig).unwrap_or_else(|_| Sig::any())
    }

    /// True if the op may be used on `profile`.
    pub fn available_on(&self, profile: ProfileId) -> bool {
        self.profiles.contains(profile)
    }
}

impl Opcode {
    /// The static facts for this opcode.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        &OPS[self as usize]
    }

    /// Canonical spelling.
    #[inline]
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Opcode from its numeric encoding, as stored in binaries.
    pub fn from_u16(v: u16) -> Option<Opcode> {
        OPS.get(v as usize).map(|i| i.opcode)
    }

    /// Looks up a spelling or alias (`pto.tadd`, `tadd`, `pto.tmatmul_acc`, ...).
    ///
    /// Dotted and underscored variant spellings are both accepted
    /// (`pto.tmatmul.acc` / `pto.tmatmul_acc`), as is the PTO-AS spelling without
    /// the `pto.` prefix.
    pub fn lookup(name: &str) -> Option<Opcode> {
        let idx = name_index();
        if let Some(op) = idx.get(name) {
            return Some(*op);
        }
        if !name.contains('.') {
            let prefixed = format!("pto.{name}");
            if let Some(op) = idx.get(prefixed.as_str()) {
                return Some(*op);
            }
        }
        None
    }
}

impl Opcode {
    /// The known spelling closest to an unknown one, for "did you mean"
    /// hints: at most two edits for a name of up to 12 characters, three
    /// beyond (so `pto.tadd_x` finds `pto.tadd`, `arith.addf` stays unhinted
    /// for `arith.foo`). Ties go to the first spelling in table order.
    pub fn suggest(name: &str) -> Option<&'static str> {
        let full = if name.contains('.') {
            name.to_string()
        } else {
            format!("pto.{name}")
        };
        let limit = if full.len() > 12 { 3 } else { 2 };
        let mut best: Option<(usize, &'static str)> = None;
        for info in OPS {
            for &cand in std::iter::once(&info.name).chain(info.aliases.iter()) {
                if cand.len().abs_diff(full.len()) > limit {
                    continue;
                }
                let d = edit_distance(&full, cand);
                if d <= limit && best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, cand));
                }
            }
        }
        best.map(|(_, c)| c)
    }
}

/// Levenshtein distance over bytes.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn name_index() -> &'static std::collections::HashMap<String, Opcode> {
    use std::sync::OnceLock;
    static IDX: OnceLock<std::collections::HashMap<String, Opcode>> = OnceLock::new();
    IDX.get_or_init(|| {
        let mut m = std::collections::HashMap::new();
        for info in OPS {
            let mut add = |s: &str| {
                m.entry(s.to_string()).or_insert(info.opcode);
                // dotted <-> underscored variant suffixes: pto.tmatmul.acc == pto.tmatmul_acc
                if let Some(rest) = s.strip_prefix("pto.") {
                    let alt = if rest.contains('.') {
                        rest.replace('.', "_")
                    } else {
                        String::new()
                    };
                    if !alt.is_empty() {
                        m.entry(format!("pto.{alt}")).or_insert(info.opcode);
                    }
                }
            };
            add(info.name);
            for a in info.aliases {
                add(a);
            }
        }
        m
    })
}

/// A stable hash of the whole table (names, sets, pipes, signatures, profiles).
/// Stored in every binary so a binary built against another table is refused.
pub fn table_hash() -> u64 {
    use std::sync::OnceLock;
    static H: OnceLock<u64> = OnceLock::new();
    *H.get_or_init(|| {
        // FNV-1a 64: stable across Rust versions (unlike DefaultHasher).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |s: &str| {
            for b in s.bytes().chain(std::iter::once(0xff)) {
                h ^= b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for i in OPS {
            feed(i.name);
            for a in i.aliases {
                feed(a);
            }
            feed(&format!(
                "{:?}|{:?}|{:?}|{:?}|{}|{:?}",
                i.set, i.pipe, i.class, i.form, i.sig, i.profiles
            ));
        }
        h
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_parses() {
        for i in OPS {
            if let Err(e) = Sig::parse(i.sig) {
                panic!("{}: bad signature {:?}: {e}", i.name, i.sig);
            }
        }
    }

    #[test]
    fn opcodes_index_the_table() {
        for (n, i) in OPS.iter().enumerate() {
            assert_eq!(i.opcode as usize, n, "{}", i.name);
            assert_eq!(Opcode::from_u16(n as u16), Some(i.opcode));
        }
        assert_eq!(Opcode::from_u16(OPS.len() as u16), None);
    }

    #[test]
    fn spellings_are_unique() {
        let mut seen = std::collections::HashMap::new();
        for i in OPS {
            for s in std::iter::once(&i.name).chain(i.aliases.iter()) {
                if let Some(prev) = seen.insert(*s, i.name) {
                    panic!("spelling {s} used by both {prev} and {}", i.name);
                }
            }
        }
    }

    #[test]
    fn unknown_names_get_the_closest_spelling() {
        assert_eq!(Opcode::suggest("pto.tadd_x"), Some("pto.tadd"));
        assert_eq!(Opcode::suggest("pto.wait_flg"), Some("pto.wait_flag"));
        assert_eq!(Opcode::suggest("arith.constnt"), Some("arith.constant"));
        assert_eq!(Opcode::suggest("pto.xyzzy_frobnicate"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn lookup_finds_aliases_and_variants() {
        assert_eq!(Opcode::lookup("pto.tadd"), Some(Opcode::TAdd));
        assert_eq!(Opcode::lookup("tadd"), Some(Opcode::TAdd));
        assert_eq!(Opcode::lookup("pto.copy_gm_to_ubuf"), Some(Opcode::MteGmUb));
        assert_eq!(Opcode::lookup("pto.tmatmul_acc"), Some(Opcode::TMatmulAcc));
        assert_eq!(Opcode::lookup("pto.no_such_op"), None);
    }

    #[test]
    fn hash_is_stable_within_a_build() {
        assert_eq!(table_hash(), table_hash());
        assert_ne!(table_hash(), 0);
    }
}

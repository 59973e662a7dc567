//! Event-flag state keyed by (source pipe, destination pipe, event id).
//!
//! Every `set_flag`, `wait_flag` and every scheduler step that looks at a
//! blocked wait reads this table, so the ids a profile has (fewer than
//! [`FLAT_IDS`] per pipe pair) live in a flat array indexed by the two pipe
//! slots and the id: no hashing. Larger ids (reported by the machine, but
//! still executed) and anything naming `PIPE_ALL` go to a map.

use rustc_hash::FxHashMap;

use pto_isa_spec::Pipe;

use super::slot_pipe;
use crate::checker::AGENTS_PER_CORE;

/// Event ids per pipe pair kept in the flat array.
const FLAT_IDS: usize = 16;
const FLAT: usize = AGENTS_PER_CORE * AGENTS_PER_CORE * FLAT_IDS;

/// A key of the table.
pub(super) type FlagKey = (Pipe, Pipe, u32);

/// A map from [`FlagKey`] to `T` with array lookups for the common keys.
#[derive(Debug)]
pub(super) struct FlagTable<T> {
    flat: Vec<Option<T>>,
    more: FxHashMap<FlagKey, T>,
}

impl<T> Default for FlagTable<T> {
    fn default() -> Self {
        FlagTable {
            flat: Vec::new(),
            more: FxHashMap::default(),
        }
    }
}

#[inline]
fn index((src, dst, id): FlagKey) -> Option<usize> {
    // a pipe's discriminant is its slot, except PIPE_ALL's (7, which
    // shares slot 0): one compare keeps PIPE_ALL and large ids out
    let (s, d) = (src as usize, dst as usize);
    if (id as usize) < FLAT_IDS && s < AGENTS_PER_CORE && d < AGENTS_PER_CORE {
        Some((s * AGENTS_PER_CORE + d) * FLAT_IDS + id as usize)
    } else {
        None
    }
}

impl<T> FlagTable<T> {
    #[inline]
    pub(super) fn get(&self, k: &FlagKey) -> Option<&T> {
        match index(*k) {
            Some(i) => self.flat.get(i).and_then(|v| v.as_ref()),
            None => self.more.get(k),
        }
    }

    #[inline]
    pub(super) fn get_mut(&mut self, k: &FlagKey) -> Option<&mut T> {
        match index(*k) {
            Some(i) => self.flat.get_mut(i).and_then(|v| v.as_mut()),
            None => self.more.get_mut(k),
        }
    }

    /// The entry of `k`, created with `T::default()` when absent.
    #[inline]
    pub(super) fn entry(&mut self, k: FlagKey) -> &mut T
    where
        T: Default,
    {
        match index(k) {
            Some(i) => {
                if self.flat.is_empty() {
                    self.flat.resize_with(FLAT, || None);
                }
                self.flat[i].get_or_insert_with(T::default)
            }
            None => self.more.entry(k).or_default(),
        }
    }

    #[inline]
    pub(super) fn insert(&mut self, k: FlagKey, v: T) {
        match index(k) {
            Some(i) => {
                if self.flat.is_empty() {
                    self.flat.resize_with(FLAT, || None);
                }
                self.flat[i] = Some(v);
            }
            None => {
                self.more.insert(k, v);
            }
        }
    }

    /// Every entry, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (FlagKey, &T)> {
        self.flat
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let v = v.as_ref()?;
                let pair = i / FLAT_IDS;
                let k = (
                    slot_pipe(pair / AGENTS_PER_CORE),
                    slot_pipe(pair % AGENTS_PER_CORE),
                    (i % FLAT_IDS) as u32,
                );
                Some((k, v))
            })
            .chain(self.more.iter().map(|(k, v)| (*k, v)))
    }

    /// Every key, in no particular order.
    pub(super) fn keys(&self) -> impl Iterator<Item = FlagKey> + '_ {
        self.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_discriminant_is_its_slot() {
        use super::super::slot;
        for p in [
            Pipe::S,
            Pipe::V,
            Pipe::M,
            Pipe::Mte1,
            Pipe::Mte2,
            Pipe::Mte3,
            Pipe::Fix,
        ] {
            assert_eq!(p as usize, slot(p));
        }
        assert!(Pipe::All as usize >= AGENTS_PER_CORE);
    }

    #[test]
    fn flat_and_spilled_keys_round_trip() {
        let mut t: FlagTable<u32> = FlagTable::default();
        assert!(t.get(&(Pipe::V, Pipe::Mte2, 0)).is_none());
        *t.entry((Pipe::V, Pipe::Mte2, 3)) += 5;
        *t.entry((Pipe::V, Pipe::Mte2, 3)) += 1;
        t.insert((Pipe::Mte3, Pipe::V, 40), 7);
        t.insert((Pipe::All, Pipe::V, 1), 9);
        assert_eq!(t.get(&(Pipe::V, Pipe::Mte2, 3)), Some(&6));
        assert_eq!(t.get(&(Pipe::Mte3, Pipe::V, 40)), Some(&7));
        assert_eq!(t.get(&(Pipe::All, Pipe::V, 1)), Some(&9));
        // PIPE_ALL shares slot 0 with PIPE_S but not its entries
        assert!(t.get(&(Pipe::S, Pipe::V, 1)).is_none());
        if let Some(v) = t.get_mut(&(Pipe::Mte3, Pipe::V, 40)) {
            *v = 8;
        }
        let mut got: Vec<_> = t.iter().map(|(k, v)| (k, *v)).collect();
        let mut want = vec![
            ((Pipe::V, Pipe::Mte2, 3), 6),
            ((Pipe::Mte3, Pipe::V, 40), 8),
            ((Pipe::All, Pipe::V, 1), 9),
        ];
        got.sort_by_key(|(k, _)| (k.0, k.1, k.2));
        want.sort_by_key(|(k, _)| (k.0, k.1, k.2));
        assert_eq!(got, want);
        assert_eq!(t.keys().count(), 3);
    }
}

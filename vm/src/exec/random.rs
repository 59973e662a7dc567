//! `trandom`: counter-based random numbers (A5).
//!
//! `pto.trandom ins(%k0, %k1, %c0, %c1, %c2, %c3 [{rounds = 7|10}]) outs(%dst)`
//! fills the valid region of a row-major `i32`/`ui32` tile with Philox4x32
//! output (the ISA manual calls it "ChaCha-like"; the A5 implementation and
//! the CPU simulator both run Philox rounds):
//!
//! * one round maps counter `(x0, x1, x2, x3)` and key `(k0, k1)` to
//!   `(hi(x2*M1) ^ x1 ^ k0, lo(x2*M1), hi(x0*M0) ^ x3 ^ k1, lo(x0*M0))` with
//!   `M0 = 0xD2511F53`, `M1 = 0xCD9E8D57` (64-bit products), then adds
//!   `0x9E3779B9` / `0xBB67AE85` to the key words; 10 rounds by default;
//! * a row is produced in chunks of 256 columns; lane `l` (0..64) of a chunk
//!   runs the rounds on the 128-bit counter `C + l` (`C` little-endian in
//!   `c0..c3`, carries propagate) and its four words land in columns
//!   `256*j + 4*l .. 256*j + 4*l + 3` (the order the A5 kernel's interleaves
//!   store); columns past the valid region are not written;
//! * after each chunk `C` advances by 64, except after a row's last chunk,
//!   where it advances by `((valid_cols - 1) mod 64) + 1` (the A5 kernel's
//!   rule; the CPU simulator differs, see docs/decisions.md).

use pto_isa_spec::DType;

use crate::exec::tile_ops::{check_valid, in_scalars, out_tile, put_bits, short, TileCall};
use crate::exec::{fault, Accesses, Fault};
use crate::mem::Local;
use crate::program::{attr, AttrVal};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32 with `rounds` rounds.
pub fn philox(mut x: [u32; 4], mut k: [u32; 2], rounds: u32) -> [u32; 4] {
    for _ in 0..rounds {
        let p0 = x[0] as u64 * M0 as u64;
        let p1 = x[2] as u64 * M1 as u64;
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    x
}

/// The 128-bit little-endian sum `c + v`.
fn add128(c: [u32; 4], v: u32) -> [u32; 4] {
    let n = (c[0] as u128 | (c[1] as u128) << 32 | (c[2] as u128) << 64 | (c[3] as u128) << 96)
        .wrapping_add(v as u128);
    [
        n as u32,
        (n >> 32) as u32,
        (n >> 64) as u32,
        (n >> 96) as u32,
    ]
}

/// Executes `trandom`.
pub fn run(call: &TileCall, local: &mut Local, acc: &mut Accesses) -> Result<(), Fault> {
    let dst = out_tile(call, 0, "destination")?;
    check_valid(call, dst, "destination")?;
    if !matches!(dst.elem, DType::I32 | DType::U32) {
        return fault(format!(
            "{}: the destination must be i32 or ui32, found {}",
            short(call),
            dst.elem
        ));
    }
    if dst.blayout != pto_asm::ty::BLayout::RowMajor {
        return fault(format!(
            "{}: the destination must be row-major",
            short(call)
        ));
    }
    let s = in_scalars(call);
    if s.len() != 6 {
        return fault(format!(
            "{}: needs two key words and four counter words, found {} scalars",
            short(call),
            s.len()
        ));
    }
    let w = |i: usize| s[i].i() as u32;
    let key = [w(0), w(1)];
    let mut ctr = [w(2), w(3), w(4), w(5)];
    let rounds = match attr(&call.attrs, "rounds") {
        None => 10,
        Some(AttrVal::Int(r @ (7 | 10))) => *r as u32,
        Some(other) => {
            return fault(format!(
                "{}: rounds must be 7 or 10, found {other:?}",
                short(call)
            ))
        }
    };
    let (vr, vc) = (dst.v_row, dst.v_col);
    let chunks = (vc + 255) / 256;
    for r in 0..vr {
        for j in 0..chunks {
            for l in 0..64u32 {
                let out = philox(add128(ctr, l), key, rounds);
                for (wi, v) in out.iter().enumerate() {
                    let c = 256 * j + 4 * l as i64 + wi as i64;
                    if c < vc {
                        put_bits(local, dst, r, c, *v as u64, acc)?;
                    }
                }
            }
            let step = if j + 1 < chunks {
                64
            } else {
                ((vc - 1).rem_euclid(64) + 1) as u32
            };
            ctr = add128(ctr, step);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_published_known_answer() {
        // Random123's philox4x32-10 known-answer vector for a zero counter and key
        assert_eq!(
            philox([0; 4], [0; 2], 10),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
    }

    #[test]
    fn counters_carry_across_words() {
        assert_eq!(add128([u32::MAX, u32::MAX, 0, 7], 2), [1, 0, 1, 7]);
    }
}

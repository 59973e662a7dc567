//! Operand signatures: a tiny DSL so each table entry stays one line.
//!
//! Grammar: `slots ['|' slots] ['->' slots]`, where `slots` is a space-separated
//! list of `kind[?|*|+]`. For destination-passing ops the part before `|` is
//! `ins(...)` and the part after is `outs(...)`; otherwise all operands come
//! before `->` and results after it.
//!
//! Kinds: `t` tile, `g` GM view (tensor view / partition view / gm memref),
//! `p` pointer, `i` integer or index scalar, `f` float scalar, `s` any scalar,
//! `v` vector register, `m` mask, `a` align state, `e` event / session / pipe
//! handle, `x` anything.

/// What an operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A tile buffer (`!pto.tile_buf`, `!pto.tile`, or a local memref).
    Tile,
    /// A GM view (`!pto.tensor_view`, `!pto.partition_tensor_view`, gm memref).
    View,
    /// A pointer (`!pto.ptr`).
    Ptr,
    /// Integer or index scalar.
    Int,
    /// Float scalar.
    Float,
    /// Any scalar.
    Scalar,
    /// Vector register.
    VReg,
    /// Predicate mask.
    Mask,
    /// Alignment state.
    Align,
    /// Event, session, pipe handle or other token.
    Event,
    /// Anything.
    Any,
}

impl OperandKind {
    fn from_char(c: char) -> Option<OperandKind> {
        Some(match c {
            't' => OperandKind::Tile,
            'g' => OperandKind::View,
            'p' => OperandKind::Ptr,
            'i' => OperandKind::Int,
            'f' => OperandKind::Float,
            's' => OperandKind::Scalar,
            'v' => OperandKind::VReg,
            'm' => OperandKind::Mask,
            'a' => OperandKind::Align,
            'e' => OperandKind::Event,
            'x' => OperandKind::Any,
            _ => return None,
        })
    }

    /// Human name used in diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            OperandKind::Tile => "a tile",
            OperandKind::View => "a GM view",
            OperandKind::Ptr => "a pointer",
            OperandKind::Int => "an integer or index",
            OperandKind::Float => "a float",
            OperandKind::Scalar => "a scalar",
            OperandKind::VReg => "a vector register",
            OperandKind::Mask => "a mask",
            OperandKind::Align => "an align state",
            OperandKind::Event => "an event or handle",
            OperandKind::Any => "a value",
        }
    }
}

/// One slot of a signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SigSlot {
    /// Required kind.
    pub kind: OperandKind,
    /// Minimum occurrences (0 or 1).
    pub min: u8,
    /// Whether the slot repeats.
    pub many: bool,
}

/// A parsed signature.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Sig {
    /// Operands (`ins` for DPS ops).
    pub ins: Vec<SigSlot>,
    /// `outs` for DPS ops.
    pub outs: Option<Vec<SigSlot>>,
    /// Results.
    pub results: Vec<SigSlot>,
}

/// A malformed signature string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigError(pub String);

impl std::fmt::Display for SigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SigError {}

fn slots(s: &str) -> Result<Vec<SigSlot>, SigError> {
    s.split_whitespace()
        .map(|tok| {
            let mut cs = tok.chars();
            let k = cs.next().ok_or_else(|| SigError("empty slot".into()))?;
            let kind = OperandKind::from_char(k)
                .ok_or_else(|| SigError(format!("unknown operand kind {k:?} in {tok:?}")))?;
            let (min, many) = match cs.as_str() {
                "" => (1, false),
                "?" => (0, false),
                "*" => (0, true),
                "+" => (1, true),
                other => return Err(SigError(format!("bad repetition {other:?} in {tok:?}"))),
            };
            Ok(SigSlot { kind, min, many })
        })
        .collect()
}

impl Sig {
    /// Parses the DSL described in the module docs.
    pub fn parse(s: &str) -> Result<Sig, SigError> {
        let (ops, results) = match s.split_once("->") {
            Some((a, b)) => (a, slots(b)?),
            None => (s, Vec::new()),
        };
        let (ins, outs) = match ops.split_once('|') {
            Some((a, b)) => (slots(a)?, Some(slots(b)?)),
            None => (slots(ops)?, None),
        };
        Ok(Sig { ins, outs, results })
    }

    /// Accepts anything.
    pub fn any() -> Sig {
        let any = SigSlot {
            kind: OperandKind::Any,
            min: 0,
            many: true,
        };
        Sig {
            ins: vec![any],
            outs: None,
            results: vec![any],
        }
    }

    /// Minimum and maximum operand counts for a slot list (`None` = unbounded).
    pub fn arity(slots: &[SigSlot]) -> (usize, Option<usize>) {
        let min = slots.iter().map(|s| s.min as usize).sum();
        let max = if slots.iter().any(|s| s.many) {
            None
        } else {
            Some(slots.len())
        };
        (min, max)
    }

    /// Assigns each of `n` actual operands to a slot, greedily left to right with
    /// optional slots filled only when there are enough operands for the required
    /// ones after them. Returns `None` if `n` does not fit.
    pub fn assign(slots: &[SigSlot], n: usize) -> Option<Vec<OperandKind>> {
        let (min, max) = Sig::arity(slots);
        if n < min || max.is_some_and(|m| n > m) {
            return None;
        }
        let mut extra = n - min; // operands available for optional/repeated slots
        let mut out = Vec::with_capacity(n);
        for s in slots {
            if s.min == 1 {
                out.push(s.kind);
            }
            if s.many {
                // a repeated slot takes everything that is not needed later
                let later_fixed_optional = 0;
                let take = extra - later_fixed_optional;
                for _ in 0..take {
                    out.push(s.kind);
                }
                extra = 0;
            } else if s.min == 0 && extra > 0 {
                out.push(s.kind);
                extra -= 1;
            }
        }
        (out.len() == n).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dps_and_generic() {
        let s = Sig::parse("t t? | t").unwrap();
        assert_eq!(s.ins.len(), 2);
        assert_eq!(s.outs.as_ref().unwrap().len(), 1);
        assert_eq!(Sig::arity(&s.ins), (1, Some(2)));
        let g = Sig::parse("v v m -> v").unwrap();
        assert!(g.outs.is_none());
        assert_eq!(g.results.len(), 1);
        assert!(Sig::parse("q").is_err());
        assert!(Sig::parse("t!").is_err());
    }

    #[test]
    fn assign_fills_optionals_in_order() {
        let s = Sig::parse("t t? t?").unwrap();
        use OperandKind::*;
        assert_eq!(Sig::assign(&s.ins, 1), Some(vec![Tile]));
        assert_eq!(Sig::assign(&s.ins, 3), Some(vec![Tile, Tile, Tile]));
        assert_eq!(Sig::assign(&s.ins, 4), None);
        let v = Sig::parse("p i*").unwrap();
        assert_eq!(Sig::assign(&v.ins, 3), Some(vec![Ptr, Int, Int]));
        assert_eq!(Sig::assign(&v.ins, 0), None);
    }
}

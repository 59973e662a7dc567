//! Scalar-unit semantics: integer and float arithmetic, comparisons, conversions.

use pto_isa_spec::DType;

use crate::exec::{fault, Fault};
use crate::num::{round_float, wrap};
use crate::program::{BinOp, Conv, MathFn, Pred};
use crate::value::Val;

/// `a op b`, integer results wrapped to `dt`, float results rounded to `dt`.
pub fn bin(op: BinOp, a: &Val, b: &Val, dt: DType) -> Result<Val, Fault> {
    use BinOp::*;
    if matches!(op, AddF | SubF | MulF | DivF | RemF | MaxF | MinF) {
        let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
            return fault("float op on a non-scalar operand");
        };
        let r = match op {
            AddF => x + y,
            SubF => x - y,
            MulF => x * y,
            DivF => x / y,
            RemF => x % y,
            MaxF => {
                if x.is_nan() || y.is_nan() {
                    f64::NAN
                } else {
                    x.max(y)
                }
            }
            _ => {
                if x.is_nan() || y.is_nan() {
                    f64::NAN
                } else {
                    x.min(y)
                }
            }
        };
        return Ok(Val::Float(round_float(r, dt)));
    }
    let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) else {
        return fault("integer op on a non-scalar operand");
    };
    let bits = if dt == DType::I64 || dt == DType::U64 {
        64
    } else {
        dt.bits()
    };
    let mask: u64 = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let (ux, uy) = (x as u64 & mask, y as u64 & mask);
    let r = match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        DivS | RemS | FloorDivS | CeilDivS if y == 0 => return fault("integer division by zero"),
        DivU | RemU | CeilDivU if uy == 0 => return fault("integer division by zero"),
        DivS => x.wrapping_div(y),
        RemS => x.wrapping_rem(y),
        FloorDivS => {
            let q = x.wrapping_div(y);
            if (x % y != 0) && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            }
        }
        CeilDivS => {
            let q = x.wrapping_div(y);
            if (x % y != 0) && ((x < 0) == (y < 0)) {
                q + 1
            } else {
                q
            }
        }
        DivU => (ux / uy) as i64,
        RemU => (ux % uy) as i64,
        CeilDivU => ux.div_ceil(uy) as i64,
        And => x & y,
        Or => x | y,
        Xor => x ^ y,
        Shl => {
            if uy >= bits as u64 {
                0
            } else {
                x.wrapping_shl(uy as u32)
            }
        }
        ShrS => {
            if uy >= bits as u64 {
                if x < 0 {
                    -1
                } else {
                    0
                }
            } else {
                x >> uy
            }
        }
        ShrU => {
            if uy >= bits as u64 {
                0
            } else {
                (ux >> uy) as i64
            }
        }
        MaxS => x.max(y),
        MinS => x.min(y),
        MaxU => ux.max(uy) as i64,
        MinU => ux.min(uy) as i64,
        _ => unreachable_float(),
    };
    Ok(Val::Int(wrap(r, int_dt(dt))))
}

fn unreachable_float() -> i64 {
    0
}

/// The integer type used for wrapping (index and i64 do not wrap).
fn int_dt(dt: DType) -> DType {
    if dt.is_float() {
        DType::I64
    } else {
        dt
    }
}

/// Comparison.
pub fn cmp(pred: Pred, unsigned: bool, float: bool, a: &Val, b: &Val) -> Result<bool, Fault> {
    if float {
        let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
            return fault("comparison of non-scalars");
        };
        return Ok(match pred {
            Pred::Eq => x == y,
            Pred::Ne => x != y,
            Pred::Lt => x < y,
            Pred::Le => x <= y,
            Pred::Gt => x > y,
            Pred::Ge => x >= y,
        });
    }
    let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) else {
        return fault("comparison of non-scalars");
    };
    let o = if unsigned {
        (x as u64).cmp(&(y as u64))
    } else {
        x.cmp(&y)
    };
    use std::cmp::Ordering::*;
    Ok(match pred {
        Pred::Eq => o == Equal,
        Pred::Ne => o != Equal,
        Pred::Lt => o == Less,
        Pred::Le => o != Greater,
        Pred::Gt => o == Greater,
        Pred::Ge => o != Less,
    })
}

/// Conversions and unary scalar math.
pub fn conv(c: Conv, v: &Val, dt: DType, from: DType) -> Result<Val, Fault> {
    Ok(match c {
        Conv::IntToInt { unsigned } => {
            let Some(x) = v.as_i64() else {
                return fault("cast of a non-integer");
            };
            let x = if unsigned {
                crate::num::wrap(x, unsigned_of(from))
            } else {
                x
            };
            Val::Int(wrap(x, int_dt(dt)))
        }
        Conv::IntToFloat { unsigned } => {
            let Some(x) = v.as_i64() else {
                return fault("cast of a non-integer");
            };
            let f = if unsigned {
                crate::num::wrap(x, unsigned_of(from)) as u64 as f64
            } else {
                x as f64
            };
            Val::Float(round_float(f, dt))
        }
        Conv::FloatToInt => {
            let Some(f) = v.as_f64() else {
                return fault("cast of a non-float");
            };
            Val::Int(wrap(f as i64, int_dt(dt)))
        }
        Conv::FloatToFloat => Val::Float(round_float(v.as_f64().unwrap_or(0.0), dt)),
        Conv::NegF => Val::Float(-v.as_f64().unwrap_or(0.0)),
        Conv::Math(m) => {
            let x = v.as_f64().unwrap_or(0.0);
            let r = match m {
                MathFn::Exp => x.exp(),
                MathFn::Log => x.ln(),
                MathFn::Sqrt => x.sqrt(),
                MathFn::Rsqrt => 1.0 / x.sqrt(),
                MathFn::Abs => x.abs(),
            };
            Val::Float(round_float(r, dt))
        }
    })
}

fn unsigned_of(dt: DType) -> DType {
    match dt {
        DType::I8 => DType::U8,
        DType::I16 => DType::U16,
        DType::I32 => DType::U32,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ops_wrap_and_divide_like_mlir() {
        assert_eq!(
            bin(
                BinOp::Add,
                &Val::Int(i32::MAX as i64),
                &Val::Int(1),
                DType::I32
            ),
            Ok(Val::Int(i32::MIN as i64))
        );
        assert_eq!(
            bin(BinOp::FloorDivS, &Val::Int(-7), &Val::Int(2), DType::I64),
            Ok(Val::Int(-4))
        );
        assert_eq!(
            bin(BinOp::CeilDivS, &Val::Int(7), &Val::Int(2), DType::I64),
            Ok(Val::Int(4))
        );
        assert_eq!(
            bin(BinOp::RemS, &Val::Int(-7), &Val::Int(2), DType::I64),
            Ok(Val::Int(-1))
        );
        assert!(bin(BinOp::DivS, &Val::Int(1), &Val::Int(0), DType::I32).is_err());
        assert_eq!(
            bin(BinOp::MaxU, &Val::Int(-1), &Val::Int(3), DType::I32),
            Ok(Val::Int(-1))
        );
    }

    #[test]
    fn float_ops_round_to_the_result_type() {
        let r = bin(
            BinOp::AddF,
            &Val::Float(1.0),
            &Val::Float(1e-10),
            DType::F32,
        )
        .unwrap();
        assert_eq!(r, Val::Float(1.0));
        assert!(cmp(Pred::Lt, true, false, &Val::Int(1), &Val::Int(-1)).unwrap());
    }
}

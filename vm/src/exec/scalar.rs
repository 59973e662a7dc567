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
        Conv::PtrToInt => match v {
            Val::Ptr(p) => Val::Int(wrap(p.addr as i64, int_dt(dt))),
            v => return fault(format!("ptrtoint of {}", v.kind())),
        },
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

/// `pto.print`'s text: the C `printf` format `fmt` applied to one scalar
/// `v` of type `dt`. Conversions: `%d %i %u %x %X %o %c` (integers; a float
/// converts toward zero), `%f %F %e %E %g %G` (floats; an integer converts),
/// `%%`, with `-`, `+`, ` `, `0`, `#` flags, a width and a precision; the
/// length modifiers `h hh l ll z j t` are accepted and ignored (the value's
/// own type decides). Every conversion prints the same value. The string's
/// MLIR escapes (`\n`, `\t`, `\\`, `\"`, `\XX` hex) are decoded.
pub fn printf(fmt: &str, v: &Val, dt: DType) -> Result<String, Fault> {
    let fmt = unescape(fmt);
    let (int, float) = match v {
        Val::Int(i) => {
            let i = if dt.is_float() {
                *i
            } else {
                wrap(*i, int_dt(dt))
            };
            (i, i as f64)
        }
        Val::Float(f) => (*f as i64, *f),
        Val::Ptr(p) => (p.addr as i64, p.addr as f64),
        v => return fault(format!("pto.print of {}", v.kind())),
    };
    let unsigned = matches!(dt, DType::U8 | DType::U16 | DType::U32 | DType::U64);
    let bits = if dt.is_float() {
        64
    } else {
        int_dt(dt).bits().max(1)
    };
    let as_u = |i: i64| (i as u64) & (u64::MAX >> (64 - bits));
    let mut out = String::new();
    let mut cs = fmt.chars().peekable();
    while let Some(ch) = cs.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = cs.peek() {
            if "-+ 0#".contains(f) {
                flags.push(f);
                cs.next();
            } else {
                break;
            }
        }
        let num = |cs: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n: Option<usize> = None;
            while let Some(d) = cs.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0) * 10 + d as usize);
                cs.next();
            }
            n
        };
        let width = num(&mut cs);
        let prec = if cs.peek() == Some(&'.') {
            cs.next();
            Some(num(&mut cs).unwrap_or(0))
        } else {
            None
        };
        while cs.peek().is_some_and(|c| "hlzjtL".contains(*c)) {
            cs.next();
        }
        let Some(conv) = cs.next() else {
            return fault(format!(
                "pto.print: format {fmt:?} ends inside a conversion"
            ));
        };
        let left = flags.contains('-');
        let plus = flags.contains('+');
        let space = flags.contains(' ');
        let zero = flags.contains('0') && !left;
        let sign = |neg: bool| {
            if neg {
                "-"
            } else if plus {
                "+"
            } else if space {
                " "
            } else {
                ""
            }
        };
        let (sgn, body): (&str, String) = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            'd' | 'i' if unsigned => ("", as_u(int).to_string()),
            'd' | 'i' => (sign(int < 0), int.unsigned_abs().to_string()),
            'u' => ("", as_u(int).to_string()),
            'x' => ("", format!("{:x}", as_u(int))),
            'X' => ("", format!("{:X}", as_u(int))),
            'o' => ("", format!("{:o}", as_u(int))),
            'c' => (
                "",
                char::from_u32(as_u(int) as u32).unwrap_or('?').to_string(),
            ),
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let p = prec.unwrap_or(6);
                let a = float.abs();
                let body = if float.is_nan() {
                    "nan".into()
                } else if a.is_infinite() {
                    "inf".into()
                } else {
                    match conv {
                        'f' | 'F' => format!("{a:.p$}"),
                        'e' | 'E' => c_exp(a, p),
                        _ => c_general(a, p.max(1), flags.contains('#')),
                    }
                };
                let body = if conv.is_ascii_uppercase() {
                    body.to_uppercase()
                } else {
                    body
                };
                (sign(float.is_sign_negative() && !float.is_nan()), body)
            }
            other => {
                return fault(format!(
                    "pto.print: conversion %{other} is not supported (d i u x X o c f F e E g G %)"
                ))
            }
        };
        // an integer precision is a minimum digit count
        let body = match (conv, prec) {
            ('d' | 'i' | 'u' | 'x' | 'X' | 'o', Some(p)) if body.len() < p => {
                format!("{}{body}", "0".repeat(p - body.len()))
            }
            _ => body,
        };
        let prefix = match conv {
            'x' if flags.contains('#') && int != 0 => "0x",
            'X' if flags.contains('#') && int != 0 => "0X",
            _ => "",
        };
        let len = sgn.len() + prefix.len() + body.len();
        let pad = width.unwrap_or(0).saturating_sub(len);
        if left {
            out += &format!("{sgn}{prefix}{body}{}", " ".repeat(pad));
        } else if zero && !(prec.is_some() && "diuxXo".contains(conv)) {
            out += &format!("{sgn}{prefix}{}{body}", "0".repeat(pad));
        } else {
            out += &format!("{}{sgn}{prefix}{body}", " ".repeat(pad));
        }
    }
    Ok(out)
}

/// `%.pe` of a non-negative finite value, C style (`1.500000e+00`).
fn c_exp(a: f64, p: usize) -> String {
    let s = format!("{a:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%.pg` of a non-negative finite value, C style.
fn c_general(a: f64, p: usize, keep_zeros: bool) -> String {
    let exp = if a == 0.0 {
        0
    } else {
        let s = format!("{a:.*e}", p - 1);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let trim = |s: String| {
        if keep_zeros || !s.contains('.') {
            s
        } else {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let s = c_exp(a, p - 1);
        let (m, e) = s.split_once('e').unwrap_or((&s, ""));
        format!("{}e{e}", trim(m.to_string()))
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim(format!("{a:.decimals$}"))
    }
}

/// Decodes MLIR string escapes.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'"' => out.push(b'"'),
                h if i + 2 < b.len() && hex(h).is_some() && hex(b[i + 2]).is_some() => {
                    out.push((hex(h).unwrap_or(0) * 16 + hex(b[i + 2]).unwrap_or(0)) as u8);
                    i += 3;
                    continue;
                }
                c => {
                    out.push(b'\\');
                    out.push(c);
                }
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
    fn print_formats_like_c_printf() {
        let i = |x: i64, dt| printf("v=%d|%5d|%-4d|%05d|%x|%+d\\n", &Val::Int(x), dt).unwrap();
        assert_eq!(i(42, DType::I32), "v=42|   42|42  |00042|2a|+42\n");
        assert_eq!(i(-3, DType::I32), "v=-3|   -3|-3  |-0003|fffffffd|-3\n");
        assert_eq!(
            printf("%u %d", &Val::Int(-1), DType::U16).unwrap(),
            "65535 65535"
        );
        let f = |fmt: &str, x: f64| printf(fmt, &Val::Float(x), DType::F32).unwrap();
        assert_eq!(f("%f", 1.5), "1.500000");
        assert_eq!(f("%8.2f|%e", -2.25), "   -2.25|-2.250000e+00");
        assert_eq!(f("%g %g %g", 0.0001), "0.0001 0.0001 0.0001");
        assert_eq!(f("%g", 1e-5), "1e-05");
        assert_eq!(f("%g", 123456789.0), "1.23457e+08");
        assert_eq!(f("%.3g|%G", 2.5), "2.5|2.5");
        assert_eq!(f("%d%%", 7.9), "7%");
        assert_eq!(f("%f", f64::NAN), "nan");
        assert!(printf("%s", &Val::Int(1), DType::I32).is_err());
        assert!(printf("%", &Val::Int(1), DType::I32).is_err());
        assert_eq!(printf("a\\0Ab", &Val::Int(1), DType::I32).unwrap(), "a\nb");
    }

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

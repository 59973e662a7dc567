//! Reading and writing NumPy `.npy` files (format versions 1-3) and raw
//! `.bin` buffers, with one-line errors that name the file. Big-endian and
//! Fortran-order files are read into the little-endian, C-order bytes the VM
//! uses; files are written little-endian in C order.

use pto_isa_spec::DType;

/// An array: element type, shape, raw little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// Element type.
    pub dtype: DType,
    /// Shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// Bytes, C order.
    pub data: Vec<u8>,
}

impl Array {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn descr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::F16 => "<f2",
        DType::BF16 => "<u2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::U16 => "<u2",
        DType::I32 => "<i4",
        DType::U32 => "<u4",
        DType::I64 => "<i8",
        DType::U64 => "<u8",
        DType::I1 => "|b1",
        _ => return None,
    })
}

fn from_descr(s: &str) -> Option<DType> {
    Some(match s {
        "<f4" | "f4" => DType::F32,
        "<f8" | "f8" => DType::F64,
        "<f2" | "f2" => DType::F16,
        "|i1" | "i1" | "<i1" => DType::I8,
        "|u1" | "u1" | "<u1" => DType::U8,
        "<i2" => DType::I16,
        "<u2" => DType::U16,
        "<i4" => DType::I32,
        "<u4" => DType::U32,
        "<i8" => DType::I64,
        "<u8" => DType::U64,
        "|b1" => DType::I1,
        _ => return None,
    })
}

/// Parses `.npy` bytes. `name` is used in error messages.
/// What a `.npy` header says about the data after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// Element type (its little-endian twin for a big-endian file).
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Column-major data.
    pub fortran: bool,
    /// Big-endian elements (swapped when read).
    pub swap: bool,
    /// Where the data start in the file.
    pub offset: usize,
    /// The data's size in bytes.
    pub data_len: usize,
}

impl Header {
    /// Whether the file's data bytes are already the little-endian, C-order
    /// bytes the VM uses (so they can be read as they are, e.g. straight
    /// into GM).
    pub fn as_is(&self) -> bool {
        (!self.swap || self.dtype.bytes() == 1)
            && (!self.fortran || self.shape.iter().filter(|d| **d > 1).count() <= 1)
    }
}

/// Parses the header of a `.npy` file from its first bytes `b` (the whole
/// header; the data need not follow).
pub fn parse_header(name: &str, b: &[u8]) -> Result<Header, String> {
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err(format!(
            "{name}: not a .npy file (missing the \\x93NUMPY magic)"
        ));
    }
    let major = b[6];
    let (hlen, start) = match major {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10usize),
        2 | 3 => {
            if b.len() < 12 {
                return Err(format!("{name}: truncated .npy header"));
            }
            (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
        }
        v => return Err(format!("{name}: unsupported .npy format version {v}")),
    };
    let header = b
        .get(start..start.saturating_add(hlen))
        .ok_or_else(|| format!("{name}: truncated .npy header"))?;
    let header =
        std::str::from_utf8(header).map_err(|_| format!("{name}: .npy header is not text"))?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))?;
        let rest = header[i + key.len() + 2..]
            .trim_start()
            .strip_prefix(':')?
            .trim_start();
        Some(rest)
    };
    let d = field("descr").ok_or_else(|| format!("{name}: .npy header has no 'descr'"))?;
    let d = d
        .strip_prefix('\'')
        .and_then(|x| x.split('\'').next())
        .unwrap_or("");
    // a big-endian element type is read as its little-endian twin, swapped
    let (le, swap) = match d.strip_prefix('>') {
        Some(rest) => (format!("<{rest}"), true),
        None => (d.to_string(), false),
    };
    let dtype = from_descr(&le).ok_or_else(|| {
        format!(
            "{name}: unsupported dtype '{d}' (expected float16/32/64, int8-64, uint8-64 or bool)"
        )
    })?;
    let fortran = field("fortran_order").is_some_and(|f| f.starts_with("True"));
    let sh = field("shape").ok_or_else(|| format!("{name}: .npy header has no 'shape'"))?;
    let sh = sh
        .strip_prefix('(')
        .and_then(|x| x.split(')').next())
        .ok_or_else(|| format!("{name}: bad shape in .npy header"))?;
    let shape: Vec<usize> = sh
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("{name}: bad dimension '{s}' in .npy header"))
        })
        .collect::<Result<_, _>>()?;
    let n: usize = shape
        .iter()
        .try_fold(1usize, |a, d| a.checked_mul(*d))
        .ok_or_else(|| format!("{name}: shape too large"))?;
    let want = n
        .checked_mul(dtype.bytes())
        .ok_or_else(|| format!("{name}: shape too large"))?;
    Ok(Header {
        dtype,
        shape,
        fortran,
        swap,
        offset: start + hlen,
        data_len: want,
    })
}

/// Parses a whole `.npy` file.
pub fn parse(name: &str, b: &[u8]) -> Result<Array, String> {
    let Header {
        dtype,
        shape,
        fortran,
        swap,
        offset,
        data_len: want,
    } = parse_header(name, b)?;
    let data = &b[offset..];
    if data.len() != want {
        return Err(format!(
            "{name}: shape {:?} of {} needs {want} bytes of data, the file has {}",
            shape,
            dtype,
            data.len()
        ));
    }
    let mut data = data.to_vec();
    let es = dtype.bytes();
    if swap && es > 1 {
        for e in data.chunks_exact_mut(es) {
            e.reverse();
        }
    }
    if fortran && shape.len() > 1 {
        data = fortran_to_c(&data, &shape, es);
    }
    Ok(Array { dtype, shape, data })
}

/// The elements of a column-major (Fortran-order) array of `shape` in row-major
/// (C) order; `es` bytes per element.
fn fortran_to_c(data: &[u8], shape: &[usize], es: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    // walk the C order with the index's column-major offset (first index fastest)
    let mut idx = vec![0usize; shape.len()];
    let mut stride = vec![1usize; shape.len()];
    for k in 1..shape.len() {
        stride[k] = stride[k - 1] * shape[k - 1];
    }
    let n: usize = shape.iter().product();
    for _ in 0..n {
        let off: usize = idx.iter().zip(&stride).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&data[off * es..(off + 1) * es]);
        // next C index: the last dimension fastest
        for k in (0..shape.len()).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

/// The `.npy` header (version 1) of an array of `dtype` and `shape`: what
/// precedes its little-endian, C-order data. bf16 is declared as uint16
/// bits. A caller with a large array writes this and then the data, without
/// building the whole file in memory.
pub fn header(dtype: DType, shape: &[usize]) -> Result<Vec<u8>, String> {
    let d = descr(dtype).ok_or_else(|| format!(".npy cannot hold {dtype} elements"))?;
    let shape = match shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut h = format!("{{'descr': '{d}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let len = u16::try_from(h.len())
        .map_err(|_| format!("a .npy header of {} bytes is too long", h.len()))?;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    Ok(out)
}

/// Serializes an array as `.npy` (version 1): [`header`], then the data.
pub fn write(a: &Array) -> Result<Vec<u8>, String> {
    let mut out = header(a.dtype, &a.shape)?;
    out.extend_from_slice(&a.data);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let a = Array {
            dtype: DType::F32,
            shape: vec![2, 3],
            data: (0..24).collect(),
        };
        let b = write(&a).unwrap();
        assert_eq!(parse("x.npy", &b).unwrap(), a);
        assert!(parse("x.npy", &b[..b.len() - 1])
            .unwrap_err()
            .contains("needs 24 bytes"));
        assert!(parse("x.npy", b"hello world")
            .unwrap_err()
            .contains("not a .npy"));
        let mut bad = b.clone();
        let i = bad.windows(3).position(|w| w == b"<f4").unwrap();
        bad[i + 1] = b'c';
        assert!(parse("x.npy", &bad)
            .unwrap_err()
            .contains("unsupported dtype '<c4'"));
    }

    /// A version-1 file with the header `h` (padded as numpy pads) and `data`.
    fn npy(h: &str, data: &[u8]) -> Vec<u8> {
        let mut h = h.to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn big_endian_and_fortran_order_read_as_little_endian_c_order() {
        // the 2x3 matrix [[0, 1, 2], [3, 4, 5]] as i16
        let c: Vec<u8> = (0..6i16).flat_map(|v| v.to_le_bytes()).collect();
        let want = Array {
            dtype: DType::I16,
            shape: vec![2, 3],
            data: c.clone(),
        };
        let be: Vec<u8> = (0..6i16).flat_map(|v| v.to_be_bytes()).collect();
        let h = |d: &str, f: &str| {
            format!("{{'descr': '{d}', 'fortran_order': {f}, 'shape': (2, 3), }}")
        };
        assert_eq!(parse("x", &npy(&h(">i2", "False"), &be)).unwrap(), want);
        // column-major: the columns one after the other
        let f: Vec<i16> = vec![0, 3, 1, 4, 2, 5];
        let fl: Vec<u8> = f.iter().flat_map(|v| v.to_le_bytes()).collect();
        let fb: Vec<u8> = f.iter().flat_map(|v| v.to_be_bytes()).collect();
        assert_eq!(parse("x", &npy(&h("<i2", "True"), &fl)).unwrap(), want);
        assert_eq!(parse("x", &npy(&h(">i2", "True"), &fb)).unwrap(), want);
        // three dimensions: element (i, j, k) of a 2x3x4 array at i + 2j + 6k
        let shape = [2usize, 3, 4];
        let mut fdata = vec![0u8; 24];
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    fdata[i + 2 * j + 6 * k] = (i * 12 + j * 4 + k) as u8;
                }
            }
        }
        let h3 = format!(
            "{{'descr': '|u1', 'fortran_order': True, 'shape': {:?}, }}",
            (shape[0], shape[1], shape[2])
        );
        let a = parse("x", &npy(&h3, &fdata)).unwrap();
        assert_eq!(a.data, (0..24u8).collect::<Vec<_>>());
        // one byte per element: no swap; f64 swaps eight
        let h8 = "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }";
        let a = parse("x", &npy(h8, &1.5f64.to_be_bytes())).unwrap();
        assert_eq!(a.data, 1.5f64.to_le_bytes());
    }
}

//! The optional TOML header of a case's `kernel.pto`: leading `//!` lines
//! that say how the case runs (profile, tolerances, grid, scheduler, checker
//! mode, scalar arguments, ranks and peer pointers, expected failures).
//! `pto-conformance` and `pto-run case` read it with this one parser, so a
//! repository case runs the same way under both (docs/cases.md lists the keys).

use pto_isa_spec::ProfileId;

use crate::{Arg, CheckMode, Sched};

/// How a case is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// Reference interpreter.
    Interp,
    /// JIT where possible.
    Jit,
    /// Interpreter and JIT side by side.
    Crosscheck,
}

impl Tier {
    /// All tiers.
    pub const ALL: [Tier; 3] = [Tier::Interp, Tier::Jit, Tier::Crosscheck];

    /// Name as in trial names and headers.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Interp => "interp",
            Tier::Jit => "jit",
            Tier::Crosscheck => "crosscheck",
        }
    }

    /// Parses a tier name.
    pub fn from_name(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// A case's header (every key optional).
#[derive(Clone, Debug, PartialEq)]
pub struct CaseHeader {
    /// Tiers to run.
    pub tiers: Vec<Tier>,
    /// Profile (else the kernel's `pto.target_arch`).
    pub profile: Option<ProfileId>,
    /// Absolute tolerance (floats), when the header gives one.
    pub atol: Option<f64>,
    /// Relative tolerance (floats), when the header gives one.
    pub rtol: Option<f64>,
    /// Known failure and why.
    pub expect_fail: Option<String>,
    /// The run must stop with a runtime fault whose message (rendered as
    /// `kernel.pto:LINE:COL: runtime fault: ...`) contains this text; the
    /// goldens then describe the memory the kernel left behind.
    pub expect_fault: Option<String>,
    /// Entry function.
    pub entry: Option<String>,
    /// Grid size, when the header gives one.
    pub blocks: Option<u32>,
    /// Scheduler, when the header gives one.
    pub sched: Option<Sched>,
    /// Checker mode, when the header gives one.
    pub check: Option<CheckMode>,
    /// Scalar arguments by `vK`.
    pub scalars: Vec<(usize, f64)>,
    /// Ranks (`pto-run --ranks R`): each runs the kernel over its own GM.
    pub ranks: u32,
    /// Per-rank arguments by `vK`: the rank number, the rank count, or a peer
    /// pointer.
    pub rank_args: Vec<(usize, RankArg)>,
}

/// An argument whose value depends on the rank (multi-rank cases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankArg {
    /// The rank's number (`scalars = { v1 = "rank" }`).
    Rank,
    /// The rank count (`scalars = { v1 = "ranks" }`).
    Ranks,
    /// A pointer to buffer argument `arg` (1-based) of rank `rank`, or with
    /// `relative` of the rank that many after this one (modulo the rank
    /// count): `peers = { v4 = "v2:1" }`, `"v2:+1"`, `"v2:-1"`.
    Peer {
        /// Buffer argument (1-based).
        arg: usize,
        /// Rank, or offset when `relative`.
        rank: i64,
        /// Whether `rank` is an offset from this rank.
        relative: bool,
    },
}

impl RankArg {
    /// The argument rank `r` of `ranks` passes.
    pub fn arg(self, r: u32, ranks: u32) -> Arg {
        match self {
            RankArg::Rank => Arg::Int(r as i64),
            RankArg::Ranks => Arg::Int(ranks as i64),
            RankArg::Peer {
                arg,
                rank,
                relative,
            } => Arg::Peer {
                arg: arg - 1,
                rank: if relative {
                    (r as i64 + rank).rem_euclid(ranks as i64) as u32
                } else {
                    rank as u32
                },
            },
        }
    }
}

impl RankArg {
    /// What the argument is, for binding reports: `rank number`, `rank
    /// count`, `peer v2 of rank r+1`, `peer v2 of rank 0`.
    pub fn describe(self) -> String {
        match self {
            RankArg::Rank => "rank number".into(),
            RankArg::Ranks => "rank count".into(),
            RankArg::Peer {
                arg,
                rank,
                relative: true,
            } => format!("peer v{arg} of rank r{rank:+}"),
            RankArg::Peer { arg, rank, .. } => format!("peer v{arg} of rank {rank}"),
        }
    }
}

/// `vK` -> K (1-based).
fn arg_index(name: &str) -> Option<usize> {
    name.strip_prefix('v')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n >= 1)
}

/// `"vJ:K"`, `"vJ:+K"`, `"vJ:-K"`.
pub fn parse_peer(spec: &str) -> Option<RankArg> {
    let (a, r) = spec.split_once(':')?;
    let arg = arg_index(a)?;
    let relative = r.starts_with('+') || r.starts_with('-');
    let rank = r.parse::<i64>().ok().filter(|k| relative || *k >= 0)?;
    Some(RankArg::Peer {
        arg,
        rank,
        relative,
    })
}

impl Default for CaseHeader {
    fn default() -> Self {
        CaseHeader {
            tiers: vec![Tier::Interp, Tier::Jit, Tier::Crosscheck],
            profile: None,
            atol: None,
            rtol: None,
            expect_fail: None,
            expect_fault: None,
            entry: None,
            blocks: None,
            sched: None,
            check: None,
            scalars: Vec::new(),
            ranks: 1,
            rank_args: Vec::new(),
        }
    }
}

/// Parses the leading `//!` lines of a kernel as a case header (TOML);
/// a kernel without them has the default header.
pub fn parse(text: &str) -> Result<CaseHeader, String> {
    let toml_text: String = text
        .lines()
        .take_while(|l| l.trim_start().starts_with("//"))
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    let mut h = CaseHeader::default();
    if toml_text.trim().is_empty() {
        return Ok(h);
    }
    let t: toml::Table = toml_text
        .parse()
        .map_err(|e| format!("bad TOML header: {e}"))?;
    for (k, v) in &t {
        let bad = || format!("header key '{k}' has a bad value {v:?}");
        match k.as_str() {
            "tiers" => {
                let arr = v.as_array().ok_or_else(bad)?;
                h.tiers = arr
                    .iter()
                    .map(|x| x.as_str().and_then(Tier::from_name).ok_or_else(bad))
                    .collect::<Result<_, _>>()?;
            }
            "profile" => {
                h.profile = Some(v.as_str().and_then(ProfileId::from_name).ok_or_else(bad)?)
            }
            "atol" => {
                h.atol = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .map(Some)
                    .ok_or_else(bad)?
            }
            "rtol" => {
                h.rtol = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .map(Some)
                    .ok_or_else(bad)?
            }
            "expect-fail" => h.expect_fail = Some(v.as_str().ok_or_else(bad)?.to_string()),
            "expect-fault" => {
                h.expect_fault = Some(
                    v.as_str()
                        .filter(|t| !t.is_empty())
                        .ok_or_else(bad)?
                        .to_string(),
                )
            }
            "entry" => h.entry = Some(v.as_str().ok_or_else(bad)?.to_string()),
            "blocks" => {
                h.blocks = Some(
                    v.as_integer()
                        .filter(|b| (1..=65536).contains(b))
                        .ok_or_else(bad)? as u32,
                )
            }
            "sched" => {
                h.sched = Some(match v.as_str() {
                    Some("inorder") => Sched::InOrder,
                    Some("timed") => Sched::Timed,
                    Some("shuffle") => Sched::Shuffle { seed: 0 },
                    _ => return Err(bad()),
                })
            }
            "check" => {
                h.check = Some(match v.as_str() {
                    Some("error") => CheckMode::Error,
                    Some("warn") => CheckMode::Warn,
                    Some("off") => CheckMode::Off,
                    _ => return Err(bad()),
                })
            }
            "scalars" => {
                let tb = v.as_table().ok_or_else(bad)?;
                for (name, x) in tb {
                    let k =
                        arg_index(name).ok_or_else(|| format!("scalars: '{name}' is not vK"))?;
                    match x.as_str() {
                        Some("rank") => {
                            h.rank_args.push((k, RankArg::Rank));
                            continue;
                        }
                        Some("ranks") => {
                            h.rank_args.push((k, RankArg::Ranks));
                            continue;
                        }
                        _ => {}
                    }
                    let val = x
                        .as_float()
                        .or_else(|| x.as_integer().map(|i| i as f64))
                        .ok_or_else(bad)?;
                    h.scalars.push((k, val));
                }
            }
            "ranks" => {
                h.ranks = v
                    .as_integer()
                    .filter(|r| (1..=256).contains(r))
                    .ok_or_else(bad)? as u32
            }
            "peers" => {
                let tb = v.as_table().ok_or_else(bad)?;
                for (name, x) in tb {
                    let k = arg_index(name).ok_or_else(|| format!("peers: '{name}' is not vK"))?;
                    let p = x.as_str().and_then(parse_peer).ok_or_else(|| {
                        format!("peers: {name} = {x:?} is not \"vJ:K\", \"vJ:+K\" or \"vJ:-K\"")
                    })?;
                    h.rank_args.push((k, p));
                }
            }
            other => return Err(format!("unknown header key '{other}'")),
        }
    }
    for (k, a) in &h.rank_args {
        if let RankArg::Peer {
            arg,
            rank,
            relative,
        } = a
        {
            if !relative && *rank >= h.ranks as i64 {
                return Err(format!(
                    "peers: v{k} names rank {rank}, but the case has {} rank(s)",
                    h.ranks
                ));
            }
            if arg == k {
                return Err(format!("peers: v{k} points at itself"));
            }
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_header_binds_peers_and_rank_numbers() {
        let h = parse(
            "//! ranks = 3\n//! peers = { v4 = \"v2:+1\", v5 = \"v2:0\" }\n//! scalars = { v1 = \"rank\", v6 = 2 }\n",
        )
        .unwrap();
        assert_eq!(h.ranks, 3);
        assert_eq!(h.scalars, vec![(6, 2.0)]);
        let find = |k| h.rank_args.iter().find(|a| a.0 == k).unwrap().1;
        assert_eq!(find(1).arg(2, 3), Arg::Int(2));
        assert_eq!(find(4).arg(2, 3), Arg::Peer { arg: 1, rank: 0 });
        assert_eq!(find(5).arg(2, 3), Arg::Peer { arg: 1, rank: 0 });
        assert_eq!(
            parse_peer("v2:-1").unwrap().arg(0, 4),
            Arg::Peer { arg: 1, rank: 3 }
        );
        assert!(parse("//! ranks = 2\n//! peers = { v3 = \"v1:2\" }\n")
            .unwrap_err()
            .contains("names rank 2"));
        assert!(parse("//! peers = { v3 = \"x\" }\n").is_err());
        assert!(parse("//! ranks = 0\n").is_err());
    }

    #[test]
    fn keys_the_header_leaves_out_stay_unset() {
        let h = parse("// a plain comment\nmodule {}\n").unwrap();
        assert_eq!(h, CaseHeader::default());
        assert_eq!(
            (h.atol, h.blocks, h.check, h.sched),
            (None, None, None, None)
        );
        let h = parse("//! atol = 1e-4\n//! blocks = 4\n//! check = \"warn\"\n").unwrap();
        assert_eq!((h.atol, h.rtol, h.blocks), (Some(1e-4), None, Some(4)));
        assert_eq!(h.check, Some(CheckMode::Warn));
        assert!(parse("//! blocks = 0\n").is_err());
        assert!(parse("//! blocks = 100000\n").is_err());
        assert!(parse("//! colour = 1\n")
            .unwrap_err()
            .contains("unknown header key"));
        assert!(parse("//! atol = [\n")
            .unwrap_err()
            .contains("bad TOML header"));
    }
}

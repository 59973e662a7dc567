//! Multi-rank runs: point-to-point puts with signals, the root-driven
//! collectives, a cross-rank deadlock, and async data read before its wait.

use pto_vm::{load_text, run_kernel_ranks, Arg, Config, DiagKind, RunError, Sched};

const T: &str = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=128, v_row=1, v_col=128, blayout=row_major, slayout=none_box, fractal=512, pad=0>";
const PV: &str = "!pto.partition_tensor_view<1x128xf32>";

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn rank_data(r: usize) -> Vec<f32> {
    (0..128)
        .map(|i| (r * 1000 + i) as f32 * 0.5 - 7.0)
        .collect()
}

/// Views `%<name>_p` (1x128 f32) over the pointer arguments named.
fn views(names: &[&str]) -> String {
    let mut s = String::from(
        "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n    %c128 = arith.constant 128 : index\n",
    );
    for n in names {
        s += &format!(
            "    %{n}_v = pto.make_tensor_view %{n}, shape = [%c1, %c128], strides = [%c128, %c1] : !pto.tensor_view<1x128xf32>\n    %{n}_p = pto.partition_view %{n}_v, offsets = [%c0, %c0], sizes = [%c1, %c128] : !pto.tensor_view<1x128xf32> -> {PV}\n"
        );
    }
    s
}

fn example(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{rel}", env!("CARGO_MANIFEST_DIR")))
        .expect("example exists")
}

/// The ring kernel's arguments on `n` ranks: (src, recv, out, sig,
/// peer_recv -> next rank's recv, peer_sig -> next rank's sig).
fn ring_args(n: usize) -> Vec<Vec<Arg>> {
    (0..n)
        .map(|r| {
            vec![
                Arg::Buffer(f32s(&rank_data(r))),
                Arg::Buffer(vec![0; 512]),
                Arg::Buffer(vec![0; 512]),
                Arg::Buffer(vec![0; 4]),
                Arg::Peer {
                    arg: 1,
                    rank: ((r + 1) % n) as u32,
                },
                Arg::Peer {
                    arg: 3,
                    rank: ((r + 1) % n) as u32,
                },
            ]
        })
        .collect()
}

#[test]
fn ring_put_with_signals_on_four_ranks() {
    let k = load_text("ring_put.pto", &example("comm/ring_put.pto"), None).expect("loads");
    for sched in [Sched::InOrder, Sched::Timed, Sched::Shuffle { seed: 3 }] {
        let cfg = Config {
            profile: k.profile,
            sched,
            ..Config::default()
        };
        let n = 4;
        let f = run_kernel_ranks(&k, &cfg, None, &ring_args(n)).expect("runs");
        assert_eq!(f.out.error, None, "{sched:?}");
        assert!(f.out.diags.is_empty(), "{:?}", f.out.diags.list);
        for r in 0..n {
            let prev = rank_data((r + n - 1) % n);
            let want: Vec<f32> = rank_data(r).iter().zip(&prev).map(|(a, b)| a + b).collect();
            assert_eq!(floats(&f.buffers[r][2]), want, "rank {r}");
            assert_eq!(floats(&f.buffers[r][1]), prev, "rank {r} received");
        }
    }
}

fn collective_kernel(op: &str) -> String {
    let body = match op {
        "reduce_max" => format!("pto.comm.treduce(%dst_p, %acc, recv(%ping), group(%g0_p, %g1_p, %g2_p) : {PV}, {T}, {T}, {PV}, {PV}, {PV}) {{reduceOp = #pto<reduce_op max>, root = 0 : i32}}"),
        "reduce_sum" => format!("pto.comm.treduce(%dst_p, %acc, recv(%ping, %pong), group(%g0_p, %g1_p, %g2_p) : {PV}, {T}, {T}, {T}, {PV}, {PV}, {PV}) {{reduceOp = #pto<reduce_op sum>, root = 0 : i32}}"),
        "broadcast" => format!("pto.comm.tbroadcast(%src_p, recv(%ping), group(%g0_p, %g1_p, %g2_p) : {PV}, {T}, {PV}, {PV}, {PV}) {{root = 0 : i32}}"),
        "get" => format!("pto.comm.tget(%dst_p, %g2_p, buf(%ping) : {PV}, {PV}, {T})"),
        _ => unreachable!(),
    };
    format!(
        "module attributes {{pto.target_arch = \"a2a3\"}} {{
  func.func @coll(%me: i32, %src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %g0: !pto.ptr<f32>, %g1: !pto.ptr<f32>, %g2: !pto.ptr<f32>) attributes {{pto.entry}} {{
{}    %zero = arith.constant 0 : i32
    %root = arith.cmpi eq, %me, %zero : i32
    %ping = pto.alloc_tile : {T}
    %pong = pto.alloc_tile : {T}
    %acc = pto.alloc_tile : {T}
    scf.if %root {{
      {body}
    }}
    return
  }}
}}
",
        views(&["src", "dst", "g0", "g1", "g2"])
    )
}

/// Runs a collective on three ranks; every group member %gK is rank K's %src.
fn run_collective(op: &str) -> Vec<Vec<Vec<u8>>> {
    let src = collective_kernel(op);
    let k = load_text("coll.pto", &src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let args: Vec<Vec<Arg>> = (0..3)
        .map(|r| {
            vec![
                Arg::Int(r as i64),
                Arg::Buffer(f32s(&rank_data(r))),
                Arg::Buffer(vec![0; 512]),
                Arg::Peer { arg: 1, rank: 0 },
                Arg::Peer { arg: 1, rank: 1 },
                Arg::Peer { arg: 1, rank: 2 },
            ]
        })
        .collect();
    let f = run_kernel_ranks(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, None, "{op}");
    f.buffers
}

#[test]
fn collectives_reduce_broadcast_and_get() {
    let d: Vec<Vec<f32>> = (0..3).map(rank_data).collect();
    let b = run_collective("reduce_sum");
    let want: Vec<f32> = (0..128).map(|i| d[0][i] + d[1][i] + d[2][i]).collect();
    assert_eq!(floats(&b[0][2]), want);
    assert_eq!(
        floats(&b[1][2]),
        vec![0.0; 128],
        "only the root's dst is written"
    );
    let b = run_collective("reduce_max");
    let want: Vec<f32> = (0..128)
        .map(|i| d[0][i].max(d[1][i]).max(d[2][i]))
        .collect();
    assert_eq!(floats(&b[0][2]), want);
    let b = run_collective("broadcast");
    for (r, rb) in b.iter().enumerate() {
        assert_eq!(floats(&rb[1]), d[0], "rank {r} got the root's data");
    }
    let b = run_collective("get");
    assert_eq!(floats(&b[0][2]), d[2]);
}

#[test]
fn a_wait_nobody_signals_is_a_deadlock_naming_twait() {
    let src = String::from(
        "module attributes {pto.target_arch = \"a2a3\"} {
  func.func @w(%sig: !pto.ptr<i32>, %peer: !pto.ptr<i32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2 : i32
    %one = arith.constant 1 : i32
    %sv = pto.make_tensor_view %sig, shape = [%c1], strides = [%c1] : !pto.tensor_view<1xi32>
    %pv = pto.make_tensor_view %peer, shape = [%c1], strides = [%c1] : !pto.tensor_view<1xi32>
    %s = pto.partition_view %sv, offsets = [%c0], sizes = [%c1] : !pto.tensor_view<1xi32> -> !pto.partition_tensor_view<1xi32>
    %p = pto.partition_view %pv, offsets = [%c0], sizes = [%c1] : !pto.tensor_view<1xi32> -> !pto.partition_tensor_view<1xi32>
    pto.comm.tnotify(%p, %one : !pto.partition_tensor_view<1xi32>, i32) {notifyOp = #pto<notify_op atomic_add>}
    pto.comm.twait(%s, %two : !pto.partition_tensor_view<1xi32>, i32) {cmp = #pto<wait_cmp eq>}
    return
  }
}
"
    );
    let k = load_text("w.pto", &src, None).expect("loads");
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let args: Vec<Vec<Arg>> = (0..2u32)
        .map(|r| {
            vec![
                Arg::Buffer(vec![0; 4]),
                Arg::Peer {
                    arg: 0,
                    rank: 1 - r,
                },
            ]
        })
        .collect();
    let f = run_kernel_ranks(&k, &cfg, None, &args).expect("runs");
    assert_eq!(f.out.error, Some(RunError::Deadlock));
    let d = f
        .out
        .diags
        .list
        .iter()
        .find(|d| d.kind == DiagKind::Deadlock)
        .expect("a deadlock diagnostic");
    assert!(
        d.message.contains("twait") && d.message.contains("== 2") && d.message.contains("holds 1"),
        "{}",
        d.message
    );
}

#[test]
fn reading_async_data_before_its_wait_is_reported() {
    let make = |wait_first: bool| {
        let wait = "    %done = pto.comm.wait_async_event(%ev, %sess : !pto.async_event, !pto.async_session) -> i1\n";
        format!(
            "module attributes {{pto.target_arch = \"a2a3\"}} {{
  func.func @a(%dst: !pto.ptr<f32>, %remote: !pto.ptr<f32>, %ws: !pto.ptr<i8>) attributes {{pto.entry}} {{
{}    %scratch = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i8, rows=1, cols=256, v_row=1, v_col=256, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %t = pto.alloc_tile : {T}
    %sess = pto.comm.build_async_session(%scratch, %ws : !pto.tile_buf<loc=vec, dtype=i8, rows=1, cols=256, v_row=1, v_col=256, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.ptr<i8>) -> !pto.async_session
    %ev = pto.comm.tget_async(%dst_p, %remote_p, %sess : {PV}, {PV}, !pto.async_session) -> !pto.async_event
{}    pto.tload ins(%dst_p : {PV}) outs(%t : {T})
{}    return
  }}
}}
",
            views(&["dst", "remote"]),
            if wait_first { wait } else { "" },
            if wait_first { "" } else { wait }
        )
    };
    for wait_first in [false, true] {
        let src = make(wait_first);
        let k = load_text("a.pto", &src, None).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let cfg = Config {
            profile: k.profile,
            ..Config::default()
        };
        let args: Vec<Vec<Arg>> = (0..2u32)
            .map(|r| {
                vec![
                    Arg::Buffer(vec![0; 512]),
                    Arg::Peer {
                        arg: 0,
                        rank: 1 - r,
                    },
                    Arg::Buffer(vec![0; 256]),
                ]
            })
            .collect();
        let f = run_kernel_ranks(&k, &cfg, None, &args).expect("runs");
        assert_eq!(f.out.error, None);
        let hits: Vec<_> = f
            .out
            .diags
            .list
            .iter()
            .filter(|d| d.kind == DiagKind::AsyncBeforeWait)
            .collect();
        if wait_first {
            assert!(hits.is_empty(), "{hits:?}");
        } else {
            assert_eq!(hits.len(), 1, "{:?}", f.out.diags.list);
            assert!(
                hits[0]
                    .message
                    .contains("reads the destination of the pto.comm.tget_async"),
                "{}",
                hits[0].message
            );
        }
    }
}

/// The ring exchange with its synchronization broken two ways: no `twait`
/// before reading `%recv`, or the `tnotify` raised before the `tput` it
/// should publish. Both are `rank-race` findings (the reader is the primary
/// line); the intact ring (above) has none.
#[test]
fn a_put_read_without_its_signal_is_a_rank_race() {
    let ring = example("comm/ring_put.pto");
    let no_wait: String = ring
        .lines()
        .filter(|l| !l.contains("pto.comm.twait"))
        .collect::<Vec<_>>()
        .join("\n");
    let put_line = ring
        .lines()
        .find(|l| l.contains("pto.comm.tput("))
        .expect("put");
    let notify_line = ring
        .lines()
        .find(|l| l.contains("pto.comm.tnotify("))
        .expect("notify");
    let early_notify = ring
        .replace(put_line, "PUT_HERE")
        .replace(notify_line, put_line)
        .replace("PUT_HERE", notify_line);
    for (name, src) in [("no twait", no_wait), ("notify before put", early_notify)] {
        let k = load_text("ring.pto", &src, None).expect("loads");
        for sched in [Sched::InOrder, Sched::Shuffle { seed: 3 }] {
            let cfg = Config {
                profile: k.profile,
                sched,
                ..Config::default()
            };
            let f = run_kernel_ranks(&k, &cfg, None, &ring_args(4)).expect("runs");
            let races: Vec<_> = f
                .out
                .diags
                .list
                .iter()
                .filter(|d| d.kind == DiagKind::RankRace)
                .collect();
            assert!(
                !races.is_empty(),
                "{name}, {sched:?}: {:?}",
                f.out.diags.list
            );
            for d in races {
                assert!(
                    d.message.contains("reads bytes [0x0, 0x200) of %recv")
                        && d.message.contains("no tnotify/twait pair orders the two"),
                    "{name}: {}",
                    d.message
                );
            }
        }
    }
}

/// The ring split over two blocks per rank: block 0 puts and notifies, block
/// 1 waits and adds. Intact it has no finding; without the `twait` block 1
/// of each rank reads `%recv` unordered against block 0 of the previous
/// rank (`rank-race`); with every block putting, the two blocks of a rank
/// both write the next rank's `%recv` (`block-race`).
#[test]
fn ranks_of_several_blocks_are_checked_block_by_block() {
    let ring = example("comm/ring_put.pto");
    let lines: Vec<&str> = ring.lines().collect();
    let at = |pat: &str| lines.iter().position(|l| l.contains(pat)).expect(pat);
    let (put, wait) = (at("pto.comm.tput("), at("pto.comm.twait("));
    // block 0: the put and the notify; block 1: the wait and the rest
    let split = |keep_wait: bool| {
        let mut s: Vec<String> = lines[..put].iter().map(|l| l.to_string()).collect();
        s.push("    %bi = pto.get_block_idx".into());
        s.push("    %z = arith.constant 0 : i64".into());
        s.push("    %first = arith.cmpi eq, %bi, %z : i64".into());
        s.push("    scf.if %first {".into());
        s.extend(lines[put..wait].iter().map(|l| l.to_string()));
        s.push("    } else {".into());
        let ret = at("    return");
        s.extend(
            lines[wait..ret]
                .iter()
                .filter(|l| keep_wait || !l.contains("pto.comm.twait("))
                .map(|l| l.to_string()),
        );
        s.push("    }".into());
        s.extend(lines[ret..].iter().map(|l| l.to_string()));
        s.join("\n")
    };
    let run = |src: &str, sched: Sched| {
        let k = load_text("ring.pto", src, None).expect("loads");
        let cfg = Config {
            profile: k.profile,
            sched,
            blocks: 2,
            ..Config::default()
        };
        let f = run_kernel_ranks(&k, &cfg, None, &ring_args(2)).expect("runs");
        assert!(f.out.error.is_none(), "{:?}", f.out.error);
        f.out.diags.list
    };
    for sched in [Sched::InOrder, Sched::Shuffle { seed: 5 }] {
        let clean = run(&split(true), sched);
        assert!(clean.is_empty(), "{sched:?}: {clean:?}");

        let d = run(&split(false), sched);
        let races: Vec<&str> = d
            .iter()
            .filter(|d| d.kind == DiagKind::RankRace)
            .map(|d| d.message.as_str())
            .collect();
        assert!(!races.is_empty(), "{sched:?}: {d:?}");
        for m in &races {
            assert!(
                m.contains("(block 1) reads bytes [0x0, 0x200) of %recv")
                    && m.contains("(block 0) writes"),
                "{m}"
            );
        }
        assert!(d.iter().all(|d| d.kind != DiagKind::BlockRace), "{d:?}");

        let d = run(&ring, sched);
        assert!(
            d.iter().any(|d| d.kind == DiagKind::BlockRace
                && d.message.contains("blocks 0 and 1 of rank")
                && d.message.contains("both write bytes [0x0, 0x200) of %recv")),
            "{sched:?}: {d:?}"
        );
    }
}

/// Two ranks of two blocks, no communication: block 0 copies `%src` to
/// `%out`, block 1 copies `%out` to `%recv`. A `pto.syncall` between the two
/// orders the blocks of each rank; without it each rank has a `block-race`.
#[test]
fn a_syncall_orders_the_blocks_of_each_rank() {
    let kernel = |syncall: bool| {
        let copy = |from: &str, to: &str| {
            format!(
                "      pto.tload ins(%{from}_p : {PV}) outs(%t : {T})\n      pto.set_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]\n      pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE3>, <EVENT_ID0>]\n      pto.tstore ins(%t : {T}) outs(%{to}_p : {PV})\n"
            )
        };
        format!(
            "module attributes {{pto.target_arch = \"a5\"}} {{\n  func.func @k(%src: !pto.ptr<f32, gm>, %recv: !pto.ptr<f32, gm>, %out: !pto.ptr<f32, gm>, %sig: !pto.ptr<i32, gm>, %pr: !pto.ptr<f32, gm>, %ps: !pto.ptr<i32, gm>) attributes {{pto.entry}} {{\n{}    %t = pto.alloc_tile : {T}\n    %bi = pto.get_block_idx\n    %z = arith.constant 0 : i64\n    %first = arith.cmpi eq, %bi, %z : i64\n    scf.if %first {{\n{}    }}\n{}    scf.if %first {{\n    }} else {{\n{}    }}\n    return\n  }}\n}}\n",
            views(&["src", "recv", "out"]),
            copy("src", "out"),
            if syncall {
                "    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>\n"
            } else {
                ""
            },
            copy("out", "recv"),
        )
    };
    for sched in [Sched::InOrder, Sched::Shuffle { seed: 9 }] {
        for syncall in [true, false] {
            let k = load_text("blocks.pto", &kernel(syncall), None).expect("loads");
            let cfg = Config {
                profile: k.profile,
                sched,
                blocks: 2,
                ..Config::default()
            };
            let f = run_kernel_ranks(&k, &cfg, None, &ring_args(2)).expect("runs");
            assert!(f.out.error.is_none(), "{:?}", f.out.error);
            let d = f.out.diags.list;
            if syncall {
                assert!(d.is_empty(), "{sched:?}: {d:?}");
                for r in 0..2 {
                    assert_eq!(floats(&f.buffers[r][1]), rank_data(r), "rank {r}'s %recv");
                }
            } else {
                // one finding per instruction pair (the other rank's repeat
                // is counted, not listed)
                let msgs: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
                assert!(
                    d.iter().any(|d| d.kind == DiagKind::BlockRace
                        && d.message.starts_with("block 1 of rank ")
                        && d.message.contains(" reads bytes [0x0, 0x200) of %out")
                        && d.message.ends_with(
                            ", which block 0 writes, and nothing orders the two blocks"
                        )),
                    "{sched:?}: {msgs:?}"
                );
            }
        }
    }
}

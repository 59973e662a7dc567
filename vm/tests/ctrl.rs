//! `pto.get_ctrl` / `pto.set_ctrl` (the core's CTRL register) and
//! `pto.sbitset0` / `pto.sbitset1`.

use pto_vm::{load_text, run_kernel, Arg, Config};

#[test]
fn ctrl_register_keeps_what_set_ctrl_wrote() {
    let src = r#"module attributes {pto.target_arch = "a5"} {
  func.func @k(%out: !pto.ptr<i64, gm>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : i64
    %c48 = arith.constant 48 : i64
    %ctrl = pto.get_ctrl : i64
    pto.store_scalar %ctrl, %out[%c0] : !pto.ptr<i64, gm>, i64
    %on = pto.sbitset1 %ctrl, %c48 : i64, i64 -> i64
    %on3 = pto.sbitset1 %on, %c3 : i64, i64 -> i64
    pto.set_ctrl %on3 : i64
    %back = pto.get_ctrl : i64
    pto.store_scalar %back, %out[%c1] : !pto.ptr<i64, gm>, i64
    %off = pto.sbitset0 %back, %c48 : i64, i64 -> i64
    pto.store_scalar %off, %out[%c2] : !pto.ptr<i64, gm>, i64
    return
  }
}"#;
    let k = load_text("ctrl.pto", src, None).unwrap_or_else(|e| panic!("{e}"));
    let cfg = Config {
        profile: k.profile,
        ..Config::default()
    };
    let f = run_kernel(&k, &cfg, None, &[Arg::Buffer(vec![0xff; 24])]).expect("runs");
    assert!(f.out.error.is_none(), "{:?}", f.out.error);
    let v: Vec<i64> = f.buffers[0]
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    assert_eq!(v, [0, (1 << 48) | 8, 8]);
}

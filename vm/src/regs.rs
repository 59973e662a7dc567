//! Which registers an instruction reads and writes (for vector-scope captures).

use crate::program::{IdRef, Inst, PipeOp, Reg, SimtDims, SyncOp, VecOp, K};

fn id(r: &IdRef, v: &mut Vec<Reg>) {
    if let IdRef::Dyn(x) = r {
        v.push(*x);
    }
}

/// (registers read, registers written).
pub fn io(k: &K) -> (Vec<Reg>, Vec<Reg>) {
    let mut i = Vec::new();
    let mut o = Vec::new();
    match k {
        K::Const { dst, .. } | K::Query { dst, .. } | K::SimtId { dst, .. } => o.push(*dst),
        K::SimtBegin {
            dims: SimtDims::Regs(dims),
            ..
        } => i.extend(dims),
        K::SimtBegin { .. } => {}
        K::SimtKeep { src, .. } => i.push(*src),
        K::SimtResume { dst, .. } => o.push(*dst),
        K::Warp { dst, src, arg, .. } => {
            i.push(*src);
            i.extend(arg);
            o.push(*dst)
        }
        K::SConvert { dst, src, .. } | K::Bitcast { dst, src, .. } => {
            i.push(*src);
            o.push(*dst)
        }
        K::IntMath { dst, args, .. } | K::FMath { dst, args, .. } => {
            i.extend(args);
            o.push(*dst)
        }
        K::Atomic {
            dst, ptr, val, cmp, ..
        } => {
            i.extend([*ptr, *val]);
            i.extend(cmp);
            o.extend(dst)
        }
        K::Bin { dst, a, b, .. } | K::Cmp { dst, a, b, .. } | K::PackedBin { dst, a, b, .. } => {
            i.extend([*a, *b]);
            o.push(*dst)
        }
        K::Select { dst, c, a, b } => {
            i.extend([*c, *a, *b]);
            o.push(*dst)
        }
        K::Conv { dst, src, .. } | K::CastPtr { dst, src, .. } => {
            i.push(*src);
            o.push(*dst)
        }
        K::AddPtr { dst, src, off, .. } => {
            i.extend([*src, *off]);
            o.push(*dst)
        }
        K::Moves { dsts, srcs } => {
            i.extend(srcs);
            o.extend(dsts)
        }
        K::BrFalse { cond, .. } => i.push(*cond),
        K::ForCheck { iv, ub, .. } => i.extend([*iv, *ub]),
        K::ForStep { iv, step } => {
            i.extend([*iv, *step]);
            o.push(*iv)
        }
        K::Call { args, dsts, .. } => {
            i.extend(args);
            o.extend(dsts)
        }
        K::Ret { vals } => i.extend(vals),
        K::ScalarMem {
            load,
            val,
            ptr,
            off,
            ..
        } => {
            i.extend([*ptr, *off]);
            if *load {
                o.push(*val)
            } else {
                i.push(*val)
            }
        }
        K::Comm {
            args,
            staging,
            group,
            dst,
            ..
        } => {
            i.extend(args.iter().chain(staging).chain(group));
            o.extend(dst)
        }
        K::MakeView {
            dst,
            ptr,
            shape,
            strides,
            ..
        } => {
            i.push(*ptr);
            i.extend(shape);
            i.extend(strides);
            o.push(*dst)
        }
        K::PartitionView {
            dst,
            src,
            offsets,
            sizes,
            ..
        } => {
            i.push(*src);
            i.extend(offsets);
            i.extend(sizes);
            o.push(*dst)
        }
        K::AllocTile {
            dst,
            addr,
            vrow,
            vcol,
            ..
        } => {
            i.extend(addr.iter().chain(vrow).chain(vcol));
            o.push(*dst)
        }
        K::SetValidShape { tile, r, c } => i.extend([*tile, *r, *c]),
        K::SubView {
            dst,
            src,
            at,
            valid,
            ..
        } => {
            i.extend([*src, at.0, at.1]);
            i.extend(valid.iter().flat_map(|v| [v.0, v.1]));
            o.push(*dst)
        }
        K::Reshape { dst, src, .. } => {
            i.push(*src);
            o.push(*dst)
        }
        K::Issue { op, .. } => match op {
            PipeOp::Tile { ins, outs, .. } => {
                i.extend(ins);
                i.extend(outs)
            }
            PipeOp::TLoad { src, dst } | PipeOp::TStore { src, dst, .. } => i.extend([*src, *dst]),
            PipeOp::TEw { a, b, dst, .. } => {
                i.push(*a);
                i.extend(b);
                i.push(*dst)
            }
            PipeOp::TEws { a, s, dst, .. } => i.extend([*a, *s, *dst]),
            PipeOp::TExpands { s, dst } => i.extend([*s, *dst]),
            PipeOp::Dma {
                src,
                dst,
                len,
                nburst,
                loops,
                pad,
                ..
            } => {
                i.extend([*src, *dst, *len]);
                i.extend(nburst);
                for l in loops {
                    i.extend(l);
                }
                i.extend(pad);
            }
            PipeOp::DmaLegacy {
                src,
                dst,
                n_burst,
                len,
                src_stride,
                dst_stride,
                select,
                ..
            } => {
                i.extend([*src, *dst, *n_burst, *len, *src_stride, *dst_stride]);
                i.extend(select);
            }
            PipeOp::Cube { regs, .. } => i.extend(regs),
        },
        K::VecScope {
            captures, binds, ..
        } => {
            i.extend(captures);
            i.extend(binds.iter().map(|b| b.1));
        }
        K::Vec(v) => match v {
            VecOp::Load { dst, ptr, off, .. } => {
                i.push(*ptr);
                i.extend(off);
                o.push(*dst)
            }
            VecOp::Store {
                src,
                ptr,
                off,
                mask,
                ..
            } => {
                i.extend([*src, *ptr]);
                i.extend(off);
                i.extend(mask)
            }
            VecOp::Ew {
                dst, a, b, s, mask, ..
            } => {
                i.push(*a);
                i.extend(b.iter().chain(s).chain(mask));
                o.push(*dst)
            }
            VecOp::Broadcast { dst, s, mask, .. } => {
                i.push(*s);
                i.extend(mask);
                o.push(*dst)
            }
            VecOp::PSet { dst, .. } => o.push(*dst),
            VecOp::PLt { dst, rest, n, .. } => {
                i.push(*n);
                o.push(*dst);
                o.extend(rest)
            }
            VecOp::Generic { dsts, srcs, .. } => {
                i.extend(srcs);
                o.extend(dsts)
            }
            VecOp::MemBar { .. } => {}
        },
        K::Sync(s) => match s {
            SyncOp::SetFlag { event, .. } | SyncOp::WaitFlag { event, .. } => id(event, &mut i),
            SyncOp::GetBuf { id: x, .. } | SyncOp::RlsBuf { id: x, .. } => id(x, &mut i),
            SyncOp::CrossSet { id: x, .. } | SyncOp::CrossWait { id: x, .. } => id(x, &mut i),
            SyncOp::Barrier { .. } => {}
        },
        K::SetLoop { a, b, .. } => i.extend([*a, *b]),
        K::IdsNew { dst, .. } => o.push(*dst),
        K::IdsGet { dst, arr, idx } => {
            i.extend([*arr, *idx]);
            o.push(*dst)
        }
        K::IdsSet { arr, idx, val } => {
            i.extend([*arr, *idx, *val]);
            o.push(*arr)
        }
        K::ReserveBuf { dst, .. }
        | K::ImportBuf { dst, .. }
        | K::FifoPop { dst, .. }
        | K::FifoAlloc { dst, .. } => o.push(*dst),
        K::Ctrl { dst, src } => {
            i.extend(src);
            o.extend(dst)
        }
        K::BitSet { dst, src, bit, .. } => {
            i.extend([*src, *bit]);
            o.push(*dst)
        }
        K::PipeInit(p) => i.extend([p.c2v_buf, p.v2c_buf, p.gm_tensor].into_iter().flatten()),
        K::FifoPush { entry, .. } => i.push(*entry),
        K::SetQuant { src, .. } => i.push(*src),
        K::FifoFree { .. } => {}
        K::Print { val, .. } | K::SetMovPad { val, .. } => i.push(*val),
        K::Jump(_)
        | K::Section { .. }
        | K::End
        | K::Nop
        | K::Trap
        | K::SyncAll { .. }
        | K::SetAtomic { .. }
        | K::Unsupported { .. }
        | K::SimtNext { .. }
        | K::SimtSync
        | K::TsyncNonVector { .. } => {}
    }
    (i, o)
}

/// Every register an instruction list touches (for tests).
pub fn all_regs(code: &[Inst]) -> Vec<Reg> {
    let mut v = Vec::new();
    for i in code {
        let (a, b) = io(&i.k);
        v.extend(a);
        v.extend(b);
    }
    v
}

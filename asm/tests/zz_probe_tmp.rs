fn run(name: &str, src: String) {
    let t = std::time::Instant::now();
    let (f, d) = pto_asm::parse("x", &src);
    let p = pto_asm::printer::print_file(&f, Default::default());
    let b = pto_asm::binary::encode(&f, None);
    let _ = pto_asm::binary::decode(&b);
    let c = pto_asm::check_text("x", &src, None);
    eprintln!(
        "{name}: {} diags, printed {} bytes, {} chk diags, {:?}",
        d.len(),
        p.len(),
        c.diagnostics.0.len(),
        t.elapsed()
    );
}
#[test]
fn probe() {
    let which = std::env::var("P").unwrap();
    let n = 100_000;
    let src = match which.as_str() {
        "paren" => "(".repeat(n),
        "brack" => "[".repeat(n),
        "brace" => "{".repeat(n),
        "angle" => "<".repeat(n),
        "attr_arr" => format!("module attributes {{a = {}}} {{}}", "[".repeat(n)),
        "attr_dict" => format!("module attributes {}", "{a = ".repeat(n)),
        "type_ptr" => format!("%x = pto.alloc_tile : {}", "!pto.ptr<".repeat(n)),
        "regions" => "scf.if %c {\n".repeat(n),
        "fn_regions" => format!("func.func @f() {{ {}", "pto.vecscope {\n".repeat(n)),
        "op_paren" => format!(
            "module {{ func.func @f() {{ pto.barrier {} }} }}",
            "(".repeat(n)
        ),
        "body_brace" => format!(
            "module {{ func.func @f() {{ %a = arith.constant {} }} }}",
            "{a = ".repeat(n)
        ),
        "dense" => format!("module attributes {{a = dense<{}>}} {{}}", "[".repeat(n)),
        "hash" => format!("module attributes {{a = #pto.x<{}>}} {{}}", "<".repeat(n)),
        "fn_type" => format!("module attributes {{a = {}}} {{}}", "(".repeat(n)),
        "vector" => format!("module attributes {{a = {}}} {{}}", "vector<".repeat(n)),
        "tensor" => format!("module attributes {{a = {}}} {{}}", "tensor<1x".repeat(n)),
        "tilebuf" => format!(
            "module attributes {{a = {}}} {{}}",
            "!pto.tile_buf<vec, 1x1x".repeat(n)
        ),
        _ => panic!(),
    };
    run(&which, src);
}

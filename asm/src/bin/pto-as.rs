//! `pto-as`: assemble PTO kernel text into a `.ptobin`, disassemble it back, or
//! just check it.
//!
//! Exit codes: 0 ok, 1 input error (parse, verify, decode, I/O), 2 usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use pto_asm::binary;
use pto_asm::printer::{print_file, PrintOptions};
use pto_isa_spec::ProfileId;

/// Assemble PTO kernel text (.pto) into a ptovm binary (.ptobin), disassemble a
/// binary back into canonical text, or check a kernel without writing anything.
#[derive(Parser, Debug)]
#[command(name = "pto-as", version, about, long_about = None)]
struct Cli {
    /// Input: a .pto text file, or a .ptobin binary with --dis.
    input: PathBuf,
    /// Output file (default: the input with extension .ptobin; with --dis: stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Disassemble: print the canonical text of a .ptobin (or of a .pto).
    #[arg(long, conflicts_with = "check")]
    dis: bool,
    /// Verify only; write nothing.
    #[arg(long)]
    check: bool,
    /// Target profile (overrides the module's pto.target_arch).
    #[arg(long, value_parser = parse_profile)]
    profile: Option<ProfileId>,
    /// Treat `// -----` lines as separators between independent inputs (with --check).
    #[arg(long)]
    split_input_file: bool,
    /// With --dis: omit `loc(...)` source locations.
    #[arg(long)]
    no_loc: bool,
    /// Overwrite the output even if it exists and is not a .ptobin.
    #[arg(long)]
    force: bool,
}

fn parse_profile(s: &str) -> Result<ProfileId, String> {
    ProfileId::from_name(s).ok_or_else(|| format!("unknown profile '{s}' (expected a2a3 or a5)"))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            if !msg.is_empty() {
                eprint!("{msg}");
                if !msg.ends_with('\n') {
                    eprintln!();
                }
            }
            ExitCode::from(1)
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    pto_asm::read_capped(path, pto_asm::MAX_KERNEL_BYTES)
        .map_err(|e| format!("pto-as: cannot read {}: {e}", path.display()))
}

fn run(cli: &Cli) -> Result<(), String> {
    let bytes = read(&cli.input)?;
    let name = cli.input.display().to_string();
    if binary::is_elf(&bytes) {
        if !cli.dis {
            return Err(format!(
                "pto-as: {name} is already a ptovm binary; use --dis to disassemble it"
            ));
        }
        let d = binary::decode(&bytes).map_err(|e| format!("pto-as: {name}: {e}"))?;
        let text = print_file(&d.file, PrintOptions { locs: !cli.no_loc });
        return emit(cli, &text);
    }
    let src = String::from_utf8(bytes).map_err(|e| {
        format!(
            "pto-as: {name} is neither a ptovm binary nor UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let chunks = if cli.split_input_file {
        pto_asm::split_input(&src)
    } else {
        vec![src.clone()]
    };
    let mut failed = false;
    let mut last = None;
    for chunk in &chunks {
        let c = pto_asm::check_text(&name, chunk, cli.profile);
        let rendered = c.diagnostics.render(&name, &src);
        eprint!("{rendered}");
        if c.diagnostics.has_errors() {
            failed = true;
        }
        last = Some(c);
    }
    if failed {
        let n: usize = chunks.len();
        return Err(if n > 1 {
            format!("pto-as: {name}: errors in the input ({n} chunks)")
        } else {
            format!("pto-as: {name}: could not assemble because of the errors above")
        });
    }
    if cli.check {
        return Ok(());
    }
    let Some(c) = last else { return Ok(()) };
    if chunks.len() > 1 {
        return Err("pto-as: --split-input-file works with --check only".into());
    }
    if cli.dis {
        let text = print_file(&c.file, PrintOptions { locs: !cli.no_loc });
        return emit(cli, &text);
    }
    let out = cli
        .output
        .clone()
        .unwrap_or_else(|| cli.input.with_extension("ptobin"));
    guard_output(&cli.input, &out, cli.force)?;
    let bin = binary::encode(&c.file, Some(c.profile));
    std::fs::write(&out, bin).map_err(|e| format!("pto-as: cannot write {}: {e}", out.display()))
}

/// Refuses to overwrite the input, or a file that is not a ptovm binary, unless forced.
fn guard_output(input: &Path, out: &Path, force: bool) -> Result<(), String> {
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(format!(
            "pto-as: refusing to overwrite the input {} with the output; pass a different -o",
            input.display()
        ));
    }
    if !force && out.exists() {
        // its first bytes say what it is (a device such as /dev/zero never ends)
        let mut head = [0u8; 4];
        let n = std::fs::File::open(out)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        let head = &head[..n];
        if !binary::is_elf(head) && !head.is_empty() {
            return Err(format!(
                "pto-as: {} exists and is not a ptovm binary; pass --force to overwrite it",
                out.display()
            ));
        }
    }
    Ok(())
}

fn emit(cli: &Cli, text: &str) -> Result<(), String> {
    match &cli.output {
        None => {
            print!("{text}");
            Ok(())
        }
        Some(out) => {
            guard_output(&cli.input, out, cli.force)?;
            std::fs::write(out, text)
                .map_err(|e| format!("pto-as: cannot write {}: {e}", out.display()))
        }
    }
}

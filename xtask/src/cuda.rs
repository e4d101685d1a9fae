//! `cargo xtask cuda [--check | --bindgen | --report-only]`: compiles the CUDA kernels of
//! every crate with the pinned nvcc.
//!
//! Kernels are found by convention: every workspace member (from `cargo metadata`) that has a
//! `kernels/` folder gets each `kernels/<name>.cu` compiled into
//! `ptx/<name>.ptx` of the same crate (which embeds it with `include_str!`). Kernels may
//! include `matexp_params.h` (`cuda-sys/include`), the device helpers of
//! `cuda-sys/kernels/common.cuh`, and headers of the crate's own `include/` folder.
//!
//! * default: PTX for `compute_80` (portable: the driver JIT-compiles it for Ampere, Hopper
//!   and later) into each crate's `ptx/`, with the source stamps of `ptx/STAMPS` that a
//!   plain test checks without nvcc ([`crate::ptx_stamp`]), then an `sm_90` cubin pass whose
//!   ptxas report (registers, spills, shared memory per kernel) is printed as a table.
//!   Warnings are errors.
//! * `--check`: compiles into a temporary folder and fails if any committed PTX differs
//!   (stale PTX, or a kernel that no longer compiles), and if `cuda-sys/src/bindings.rs` was
//!   not generated from the current `cuda-sys/include/matexp_params.h`. CI runs this.
//! * `--bindgen`: regenerates `cuda-sys/src/bindings.rs` from `cuda-sys/include/*.h`
//!   (needs libclang: `apt-get install -y libclang-dev`).
//! * `--report-only`: only the sm_90 resource report.
//!
//! nvcc comes from pip wheels pinned to the GPU hosts' CUDA 13.0 (a newer nvcc emits PTX the
//! 13.0 driver rejects); when `.tools/nvcc` is missing it is created with
//! `python3 -m venv .tools/nvcc && .tools/nvcc/bin/pip install <pins>`.

use crate::ptx_stamp::{self, fnv1a64};
use crate::util::{cargo_program, crate_dirs, ensure_python_venv, root_shell, workspace_root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use xshell::cmd;

/// The pip pins of the CUDA 13.0 toolchain (see DEVICE notes of the project).
const NVCC_PINS: [&str; 4] = [
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
];

/// Flags shared by the PTX and cubin passes. `-Werror all-warnings` turns every nvcc,
/// cudafe and ptxas warning into an error.
const COMMON_FLAGS: [&str; 4] = [
    "-std=c++17",
    "-Werror",
    "all-warnings",
    "-Xptxas=-warn-spills",
];

/// Flags of the PTX pass, after [`COMMON_FLAGS`].
const PTX_FLAGS: [&str; 2] = ["-arch=compute_80", "-ptx"];

/// What besides the sources decides the PTX bytes: the nvcc pin and the flags. Part of every
/// source stamp ([`crate::ptx_stamp`]).
pub(crate) fn ptx_toolchain() -> Vec<&'static str> {
    NVCC_PINS
        .iter()
        .chain(&COMMON_FLAGS)
        .chain(&PTX_FLAGS)
        .copied()
        .collect()
}

/// The options of `cargo xtask cuda`; none: compile `<crate>/kernels/*.cu` to
/// `<crate>/ptx/*.ptx` (every crate folder at the root or under crates/) and print the sm_90
/// resource report.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct CudaArgs {
    /// recompile into a temporary folder; fail if any committed PTX differs or
    /// cuda-sys/src/bindings.rs is stale against its header
    #[arg(long)]
    pub check: bool,
    /// regenerate cuda-sys/src/bindings.rs from cuda-sys/include (needs libclang-dev)
    #[arg(long)]
    pub bindgen: bool,
    /// print the sm_90 register / spill report only
    #[arg(long)]
    pub report_only: bool,
}

/// What `cargo xtask cuda --help` says beyond the options.
pub const ABOUT: &str = "\
Without options: compile <crate>/kernels/*.cu to <crate>/ptx/*.ptx (every crate folder at the
root or under crates/) with the pinned nvcc, and print the sm_90 resource report.";

/// Entry point of `cargo xtask cuda`.
pub fn run(args: CudaArgs) -> Result<(), String> {
    let CudaArgs {
        check,
        bindgen,
        report_only,
    } = args;
    let root = workspace_root();
    if bindgen {
        return regenerate_bindings();
    }
    let sources = kernel_sources(&root)?;
    if check {
        // The header check needs no nvcc: report it even when nvcc cannot be installed.
        let bindings = check_bindings(&root);
        let nvcc = ensure_nvcc(&root)?;
        let ptx = check_ptx(&root, &nvcc, &sources);
        return match (bindings, ptx) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(a), Ok(())) | (Ok(()), Err(a)) => Err(a),
            (Err(a), Err(b)) => Err(format!("{a}\n{b}")),
        };
    }
    let nvcc = ensure_nvcc(&root)?;
    if !report_only {
        let mut stamps: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
        for src in &sources {
            let out = src.crate_dir.join("ptx");
            std::fs::create_dir_all(&out).map_err(|e| format!("create {}: {e}", out.display()))?;
            let name = ptx_name(&src.path);
            let ptx = out.join(&name);
            compile_ptx(&root, &nvcc, src, &ptx)?;
            let bytes = std::fs::read(&ptx).map_err(|e| format!("read {}: {e}", ptx.display()))?;
            let source =
                ptx_stamp::source_hash(&root, &src.crate_dir, &src.path, &ptx_toolchain())?;
            stamps
                .entry(out)
                .or_default()
                .push(ptx_stamp::line(&name, source, &bytes));
            println!(
                "cuda: {} -> {} ({} KiB)",
                rel(&root, &src.path),
                rel(&root, &ptx),
                bytes.len() / 1024
            );
        }
        for (dir, lines) in stamps {
            let path = dir.join(ptx_stamp::STAMPS);
            std::fs::write(&path, ptx_stamp::file_text(&lines))
                .map_err(|e| format!("write {}: {e}", path.display()))?;
        }
    }
    resource_report(&root, &nvcc, &sources)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// Runs `cmd` with captured output (nvcc's report is parsed); fails with both streams.
fn capture(cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{:?} failed ({}):\n{}{}",
            cmd,
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Path of the pinned nvcc, installing the pip wheels into `.tools/nvcc` when missing.
fn ensure_nvcc(root: &Path) -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("MATEXP_NVCC") {
        return Ok(PathBuf::from(p));
    }
    let venv = root.join(".tools").join("nvcc");
    if let Some(p) = find_nvcc(&venv) {
        return Ok(p);
    }
    ensure_python_venv()?;
    eprintln!(
        "cuda: installing the pinned nvcc into {} ...",
        rel(root, &venv)
    );
    capture(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    capture(
        Command::new(venv.join("bin").join("pip"))
            .args(["install", "--quiet"])
            .args(NVCC_PINS),
    )?;
    find_nvcc(&venv).ok_or_else(|| format!("nvcc not found under {} after install", venv.display()))
}

fn find_nvcc(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let entries = std::fs::read_dir(&lib).ok()?;
    entries.flatten().find_map(|e| {
        let p = e.path().join("site-packages/nvidia/cu13/bin/nvcc");
        p.is_file().then_some(p)
    })
}

/// One kernel source and the crate folder that owns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    /// The crate's folder (absolute).
    pub(crate) crate_dir: PathBuf,
    /// `<crate_dir>/kernels/<name>.cu`.
    pub(crate) path: PathBuf,
}

/// `<crate>/kernels/*.cu` of every workspace member, sorted (cuda-sys first).
pub(crate) fn kernel_sources(root: &Path) -> Result<Vec<Source>, String> {
    let mut v = Vec::new();
    for dir in crate_dirs()? {
        let kernels = dir.join("kernels");
        let Ok(rd) = std::fs::read_dir(&kernels) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        files.sort();
        v.extend(files.into_iter().map(|path| Source {
            crate_dir: dir.clone(),
            path,
        }));
    }
    v.sort_by_key(|s| (!s.crate_dir.ends_with("cuda-sys"), s.path.clone()));
    if !v.iter().any(|s| s.crate_dir.ends_with("cuda-sys")) {
        return Err(format!(
            "no .cu files in {}",
            root.join("cuda-sys").join("kernels").display()
        ));
    }
    Ok(v)
}

pub(crate) fn ptx_name(src: &Path) -> String {
    format!(
        "{}.ptx",
        src.file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
    )
}

/// nvcc in the source's crate folder, with the shared and the crate's own include paths.
/// cuda-sys compiles exactly as it always has (`-I include`), so its PTX is unchanged.
fn nvcc_base(root: &Path, nvcc: &Path, src: &Source) -> Command {
    let mut c = Command::new(nvcc);
    c.current_dir(&src.crate_dir).args(COMMON_FLAGS);
    if !src.crate_dir.ends_with("cuda-sys") {
        c.arg("-I")
            .arg(root.join("cuda-sys").join("include"))
            .arg("-I")
            .arg(root.join("cuda-sys").join("kernels"));
    }
    c.arg("-I").arg("include");
    c
}

fn kernel_arg(src: &Source) -> PathBuf {
    Path::new("kernels").join(src.path.file_name().unwrap_or_default())
}

fn compile_ptx(root: &Path, nvcc: &Path, src: &Source, out: &Path) -> Result<(), String> {
    capture(
        nvcc_base(root, nvcc, src)
            .args(PTX_FLAGS)
            .arg("-o")
            .arg(out)
            .arg(kernel_arg(src)),
    )
    .map(|_| ())
}

/// The line `bindings.rs` carries for a header with these bytes.
pub fn header_stamp(header: &[u8]) -> String {
    format!("// header fnv1a64: {:016x}", fnv1a64(header))
}

/// Fails when `cuda-sys/src/bindings.rs` was not generated from the current header (its
/// recorded fingerprint differs), naming the command that regenerates it.
fn check_bindings(root: &Path) -> Result<(), String> {
    let sys = root.join("cuda-sys");
    let header_path = sys.join("include").join("matexp_params.h");
    let header =
        std::fs::read(&header_path).map_err(|e| format!("read {}: {e}", header_path.display()))?;
    let bindings_path = sys.join("src").join("bindings.rs");
    let bindings = std::fs::read_to_string(&bindings_path)
        .map_err(|e| format!("read {}: {e}", bindings_path.display()))?;
    let want = header_stamp(&header);
    if bindings.lines().any(|l| l.trim() == want) {
        println!("cuda: cuda-sys/src/bindings.rs matches include/matexp_params.h");
        Ok(())
    } else {
        Err(format!(
            "stale bindings: cuda-sys/src/bindings.rs was not generated from the current \
             cuda-sys/include/matexp_params.h (run `cargo xtask cuda --bindgen` and commit it; \
             expected the line `{want}`)"
        ))
    }
}

fn check_ptx(root: &Path, nvcc: &Path, sources: &[Source]) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("matexp-ptx-check-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
    let mut stale = Vec::new();
    let result = (|| {
        for (i, src) in sources.iter().enumerate() {
            let name = ptx_name(&src.path);
            let fresh = tmp.join(format!("{i}-{name}"));
            compile_ptx(root, nvcc, src, &fresh)?;
            let a = std::fs::read(&fresh).map_err(|e| format!("read {}: {e}", fresh.display()))?;
            let committed = src.crate_dir.join("ptx").join(&name);
            match std::fs::read(&committed) {
                Ok(b) if a == b => {}
                Ok(_) => stale.push(format!(
                    "{} differs from {}",
                    rel(root, &committed),
                    rel(root, &src.path)
                )),
                Err(_) => stale.push(format!("{} is missing", rel(root, &committed))),
            }
        }
        // A committed PTX without a source would be loaded but never rebuilt.
        for dir in crate_dirs()? {
            let Ok(rd) = std::fs::read_dir(dir.join("ptx")) else {
                continue;
            };
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if n.ends_with(".ptx")
                    && !sources
                        .iter()
                        .any(|s| s.crate_dir == dir && ptx_name(&s.path) == n)
                {
                    stale.push(format!(
                        "{} has no source in {}",
                        rel(root, &e.path()),
                        rel(root, &dir.join("kernels"))
                    ));
                }
            }
        }
        Ok::<(), String>(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result?;
    if stale.is_empty() {
        println!(
            "cuda: committed PTX is up to date ({} modules)",
            sources.len()
        );
        Ok(())
    } else {
        Err(format!(
            "stale PTX (run `cargo xtask cuda` and commit the ptx/ folders):\n  {}",
            stale.join("\n  ")
        ))
    }
}

/// Per-kernel ptxas figures of the sm_90 build.
#[derive(Default, Debug)]
struct Resources {
    registers: u32,
    spill_stores: u32,
    spill_loads: u32,
    stack: u32,
    smem: u32,
}

fn resource_report(root: &Path, nvcc: &Path, sources: &[Source]) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("matexp-cubin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
    let mut table: BTreeMap<String, Resources> = BTreeMap::new();
    let result = (|| {
        for src in sources {
            let out = capture(
                nvcc_base(root, nvcc, src)
                    .args(["-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o"])
                    .arg(tmp.join("k.cubin"))
                    .arg(kernel_arg(src)),
            )?;
            parse_ptxas(&String::from_utf8_lossy(&out.stderr), &mut table);
        }
        Ok::<(), String>(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result?;
    println!(
        "\n{:<34} {:>5} {:>7} {:>7} {:>6} {:>6}",
        "kernel (sm_90)", "regs", "spill-st", "spill-ld", "stack", "smem"
    );
    let mut spilled = 0;
    for (k, r) in &table {
        println!(
            "{:<34} {:>5} {:>7} {:>7} {:>6} {:>6}",
            k, r.registers, r.spill_stores, r.spill_loads, r.stack, r.smem
        );
        if r.spill_stores + r.spill_loads > 0 {
            spilled += 1;
        }
    }
    println!(
        "{} kernels, max {} registers, {} with spills",
        table.len(),
        table.values().map(|r| r.registers).max().unwrap_or(0),
        spilled
    );
    Ok(())
}

/// Reads ptxas `-v` output: "Compiling entry function 'k' for 'sm_90'", then
/// "N bytes stack frame, N bytes spill stores, N bytes spill loads" and
/// "Used N registers, ..., N bytes smem".
fn parse_ptxas(text: &str, table: &mut BTreeMap<String, Resources>) {
    let mut current: Option<String> = None;
    let num_before = |line: &str, key: &str| -> u32 {
        line.find(key)
            .and_then(|i| line[..i].split_whitespace().last())
            .and_then(|w| w.parse().ok())
            .unwrap_or(0)
    };
    for line in text.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            current = rest.split('\'').next().map(str::to_string);
            if let Some(k) = &current {
                table.entry(k.clone()).or_default();
            }
        } else if let Some(k) = &current {
            let r = table.entry(k.clone()).or_default();
            if line.contains("stack frame") {
                r.stack = num_before(line, "bytes stack frame");
                r.spill_stores = num_before(line, "bytes spill stores");
                r.spill_loads = num_before(line, "bytes spill loads");
            }
            if line.contains("Used ") {
                r.registers = num_before(line, "registers");
                r.smem = num_before(line, "bytes smem");
            }
        }
    }
}

fn regenerate_bindings() -> Result<(), String> {
    if !libclang_present() {
        return Err(
            "bindgen needs libclang: install it with `apt-get install -y libclang-dev` \
                    (or point LIBCLANG_PATH at a folder holding libclang.so)"
                .into(),
        );
    }
    let sh = root_shell()?;
    let cargo = cargo_program();
    capture(&mut Command::from(cmd!(
        sh,
        "{cargo} run --quiet -p matexp-cuda-sys --example bindgen --features bindgen"
    )))
    .map(|o| print!("{}", String::from_utf8_lossy(&o.stdout)))
}

fn libclang_present() -> bool {
    if std::env::var_os("LIBCLANG_PATH").is_some() {
        return true;
    }
    let dirs = [
        "/usr/lib",
        "/usr/lib64",
        "/usr/local/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ];
    let has = |d: &Path| {
        std::fs::read_dir(d).is_ok_and(|rd| {
            rd.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libclang"))
        })
    };
    dirs.iter().any(|d| has(Path::new(d)))
        || std::fs::read_dir("/usr/lib").is_ok_and(|rd| {
            rd.flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with("llvm-") && has(&e.path().join("lib"))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_found_in_every_crate_folder_by_convention() {
        let root = workspace_root();
        let sources = kernel_sources(&root).unwrap();
        assert!(sources[0].crate_dir.ends_with("cuda-sys"));
        assert!(
            sources
                .iter()
                .any(|s| s.path.ends_with("cuda-sys/kernels/spmv.cu"))
        );
        for s in &sources {
            assert_eq!(s.path.parent(), Some(s.crate_dir.join("kernels").as_path()));
        }
    }

    #[test]
    fn committed_bindings_match_the_header() {
        check_bindings(&workspace_root()).unwrap();
    }

    #[test]
    fn header_stamp_changes_with_any_byte() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(header_stamp(b"int x;"), header_stamp(b"int y;"));
    }

    #[test]
    fn ptxas_report_is_parsed_per_kernel() {
        let text = "ptxas info    : Compiling entry function 'spmv_x' for 'sm_90'\n\
                    ptxas info    : Function properties for spmv_x\n\
                    \x20   8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
                    ptxas info    : Used 40 registers, used 1 barriers, 192 bytes smem\n";
        let mut t = BTreeMap::new();
        parse_ptxas(text, &mut t);
        let r = &t["spmv_x"];
        assert_eq!(
            (r.registers, r.spill_stores, r.spill_loads, r.stack, r.smem),
            (40, 4, 12, 8, 192)
        );
    }
}

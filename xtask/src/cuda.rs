//! `cargo xtask cuda [--check | --bindgen | --report-only]`: compiles the CUDA kernels of
//! `cuda-sys/kernels/` with the pinned nvcc.
//!
//! * default: PTX for `compute_80` (portable: the driver JIT-compiles it for Ampere, Hopper
//!   and later) into `cuda-sys/ptx/`, then an `sm_90` cubin pass whose ptxas report
//!   (registers, spills, shared memory per kernel) is printed as a table. Warnings are errors.
//! * `--check`: compiles into a temporary folder and fails if the committed PTX differs
//!   (stale PTX, or a kernel that no longer compiles). CI runs this.
//! * `--bindgen`: regenerates `cuda-sys/src/bindings.rs` from `cuda-sys/include/*.h`
//!   (needs libclang: `apt-get install -y libclang-dev`).
//! * `--report-only`: only the sm_90 resource report.
//!
//! nvcc comes from pip wheels pinned to the GPU hosts' CUDA 13.0 (a newer nvcc emits PTX the
//! 13.0 driver rejects); when `.tools/nvcc` is missing it is created with
//! `python3 -m venv .tools/nvcc && .tools/nvcc/bin/pip install <pins>`.

use crate::util::{cargo, ensure_python_venv, workspace_root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Entry point of `cargo xtask cuda`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    let mut bindgen = false;
    let mut report_only = false;
    for a in args {
        match a.as_str() {
            "--check" => check = true,
            "--bindgen" => bindgen = true,
            "--report-only" => report_only = true,
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask cuda [--check | --bindgen | --report-only]\n\
                     \n  (none)         compile cuda-sys/kernels/*.cu to cuda-sys/ptx/*.ptx and print the sm_90 resource report\
                     \n  --check        recompile into a temporary folder; fail if the committed PTX differs\
                     \n  --bindgen      regenerate cuda-sys/src/bindings.rs from cuda-sys/include (needs libclang-dev)\
                     \n  --report-only  print the sm_90 register / spill report only"
                );
                return Ok(());
            }
            other => return Err(format!("cuda: unknown argument `{other}` (try --help)")),
        }
    }
    let root = workspace_root();
    if bindgen {
        return regenerate_bindings();
    }
    let nvcc = ensure_nvcc(&root)?;
    let sources = kernel_sources(&root)?;
    if check {
        return check_ptx(&root, &nvcc, &sources);
    }
    if !report_only {
        let out = root.join("cuda-sys").join("ptx");
        std::fs::create_dir_all(&out).map_err(|e| format!("create {}: {e}", out.display()))?;
        for src in &sources {
            let ptx = out.join(ptx_name(src));
            compile_ptx(&root, &nvcc, src, &ptx)?;
            let bytes = std::fs::metadata(&ptx).map(|m| m.len()).unwrap_or(0);
            println!(
                "cuda: {} -> {} ({} KiB)",
                rel(&root, src),
                rel(&root, &ptx),
                bytes / 1024
            );
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

/// `cuda-sys/kernels/*.cu`, sorted.
fn kernel_sources(root: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = root.join("cuda-sys").join("kernels");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(format!("no .cu files in {}", dir.display()));
    }
    Ok(v)
}

fn ptx_name(src: &Path) -> String {
    format!(
        "{}.ptx",
        src.file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
    )
}

fn nvcc_base(root: &Path, nvcc: &Path) -> Command {
    let mut c = Command::new(nvcc);
    c.current_dir(root.join("cuda-sys"))
        .args(COMMON_FLAGS)
        .arg("-I")
        .arg("include");
    c
}

fn compile_ptx(root: &Path, nvcc: &Path, src: &Path, out: &Path) -> Result<(), String> {
    capture(
        nvcc_base(root, nvcc)
            .args(["-arch=compute_80", "-ptx", "-o"])
            .arg(out)
            .arg(Path::new("kernels").join(src.file_name().unwrap_or_default())),
    )
    .map(|_| ())
}

fn check_ptx(root: &Path, nvcc: &Path, sources: &[PathBuf]) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("matexp-ptx-check-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
    let committed_dir = root.join("cuda-sys").join("ptx");
    let mut stale = Vec::new();
    let result = (|| {
        for src in sources {
            let name = ptx_name(src);
            let fresh = tmp.join(&name);
            compile_ptx(root, nvcc, src, &fresh)?;
            let a = std::fs::read(&fresh).map_err(|e| format!("read {}: {e}", fresh.display()))?;
            match std::fs::read(committed_dir.join(&name)) {
                Ok(b) if a == b => {}
                Ok(_) => stale.push(format!(
                    "cuda-sys/ptx/{name} differs from {}",
                    rel(root, src)
                )),
                Err(_) => stale.push(format!("cuda-sys/ptx/{name} is missing")),
            }
        }
        // A committed PTX without a source would be loaded but never rebuilt.
        if let Ok(rd) = std::fs::read_dir(&committed_dir) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if n.ends_with(".ptx") && !sources.iter().any(|s| ptx_name(s) == n) {
                    stale.push(format!(
                        "cuda-sys/ptx/{n} has no source in cuda-sys/kernels"
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
            "stale PTX (run `cargo xtask cuda` and commit cuda-sys/ptx):\n  {}",
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

fn resource_report(root: &Path, nvcc: &Path, sources: &[PathBuf]) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("matexp-cubin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
    let mut table: BTreeMap<String, Resources> = BTreeMap::new();
    let result = (|| {
        for src in sources {
            let out = capture(
                nvcc_base(root, nvcc)
                    .args(["-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o"])
                    .arg(tmp.join("k.cubin"))
                    .arg(Path::new("kernels").join(src.file_name().unwrap_or_default())),
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
    capture(cargo().args([
        "run",
        "--quiet",
        "-p",
        "matexp-cuda-sys",
        "--example",
        "bindgen",
        "--features",
        "bindgen",
    ]))
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

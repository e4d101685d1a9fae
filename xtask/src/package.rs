//! `cargo xtask package`: checks that every publishable crate of the workspace packages and
//! builds from its package alone, as it would from crates.io.
//!
//! One `cargo package --workspace` does it: cargo packages the members in dependency order and
//! resolves their path dependencies on each other through a local registry overlay of the
//! crates it has just packaged, so crates that depend on unpublished siblings are checked
//! too. Members with `publish = false` (test support, end-to-end tests, benches, xtask) are
//! skipped by cargo itself, so a new crate is covered the moment it joins the workspace.

use crate::util::{Steps, cargo_program, root_shell, run_cmd, workspace_packages};
use xshell::cmd;

/// What `cargo xtask package --help` says beyond the options.
pub const ABOUT: &str = "\
Runs `cargo package --workspace --allow-dirty`: every workspace member that is not
`publish = false` is packaged and, unless --no-verify, its package is compiled on its own,
which catches files outside the crate (`include_str!(\"../../x\")`), a missing README or
license file, and dependencies that do not resolve without the workspace (a dev-dependency
on a `publish = false` crate must be a path without `version`, so that packaging drops it).
The working tree is packaged as it is (`--allow-dirty`): this is a check, not a release.";

/// The options of `cargo xtask package`.
#[derive(Debug, Default, PartialEq, clap::Args)]
pub struct PackageArgs {
    /// package without compiling the packages (seconds instead of a minute)
    #[arg(long)]
    no_verify: bool,
    /// print the crates that would be packaged and exit
    #[arg(long)]
    list: bool,
}

/// Whether a package's `publish` field allows publishing: absent (no restriction) or a
/// non-empty registry list (`publish = false` reads as an empty list).
fn is_publishable(publish: Option<&[String]>) -> bool {
    publish.is_none_or(|registries| !registries.is_empty())
}

/// The publishable workspace members, sorted.
fn workspace_publishable() -> Result<Vec<String>, String> {
    let mut names: Vec<String> = workspace_packages()?
        .iter()
        .filter(|p| is_publishable(p.publish.as_deref()))
        .map(|p| p.name.to_string())
        .collect();
    names.sort();
    Ok(names)
}

pub fn run(args: PackageArgs) -> Result<(), String> {
    let crates = workspace_publishable()?;
    if args.list {
        for c in &crates {
            println!("{c}");
        }
        return Ok(());
    }
    println!("package: {} crates: {}", crates.len(), crates.join(", "));
    let mut steps = Steps::new("package", 1);
    steps.run("package", command_line(args.no_verify), || {
        package_workspace(args.no_verify)
    });
    steps.finish()
}

fn command_line(no_verify: bool) -> &'static str {
    if no_verify {
        "cargo package --workspace --allow-dirty --no-verify"
    } else {
        "cargo package --workspace --allow-dirty"
    }
}

/// Packages (and unless `no_verify`, builds) every publishable member; the step of
/// `cargo xtask test`.
pub fn package_workspace(no_verify: bool) -> Result<(), String> {
    forget_earlier_packages(&workspace_publishable()?);
    // The verification builds registry copies of our crates, which cargo takes as immutable:
    // an artifact of an earlier run with the same version would be reused as it is, so the
    // packages are built in a target folder of their own, emptied first.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::util::workspace_root().join("target"));
    let verify_target = target.join("package-verify");
    for dir in [target.join("package"), verify_target.clone()] {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("removing {}: {e}", dir.display()))?;
        }
    }
    let sh = root_shell()?;
    let cargo = cargo_program();
    let no_verify = no_verify.then_some("--no-verify");
    run_cmd(
        cmd!(
            sh,
            "{cargo} package --workspace --allow-dirty {no_verify...}"
        )
        .env("CARGO_TARGET_DIR", &verify_target)
        // The verification builds each package with the default dev profile (a package's
        // manifest carries none of the workspace's profiles): full debug info for every
        // dependency, which this check never reads.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0"),
    )
}

/// Removes our crates from cargo's caches of local registries.
///
/// The verification resolves the workspace's crates through a local registry under
/// `target/package/tmp-registry`; cargo unpacks each `.crate` into
/// `$CARGO_HOME/registry/src/-<hash of that path>/` and never unpacks a name and version it
/// finds there again. A clone at a path used before (CI's checkout) would therefore verify
/// against the sources of an earlier run with the same version number. Local registries are
/// the cache folders whose name starts with `-` (they have no registry name); only our
/// crates' entries are removed.
fn forget_earlier_packages(crates: &[String]) {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    let Some(home) = home else { return };
    let mut removed = 0;
    for sub in ["src", "cache"] {
        let Ok(registries) = std::fs::read_dir(home.join("registry").join(sub)) else {
            continue;
        };
        for registry in registries.flatten() {
            if !registry.file_name().to_string_lossy().starts_with('-') {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(registry.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !is_package_of(&name, crates) {
                    continue;
                }
                let path = entry.path();
                let gone = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                if gone.is_ok() {
                    removed += 1;
                }
            }
        }
    }
    if removed > 0 {
        println!("package: removed {removed} unpacked copies of earlier packages of these crates");
    }
}

/// `name` is `<crate>-<version>[.crate]` for one of `crates`.
fn is_package_of(name: &str, crates: &[String]) -> bool {
    let name = name.strip_suffix(".crate").unwrap_or(name);
    crates.iter().any(|c| {
        name.strip_prefix(c.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|v| v.starts_with(|ch: char| ch.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_cache_entries_are_matched_by_crate_and_version() {
        let crates = vec!["matexp".to_string(), "matexp-core".to_string()];
        assert!(is_package_of("matexp-core-0.1.0", &crates));
        assert!(is_package_of("matexp-0.1.0.crate", &crates));
        // A sibling whose name extends ours is not ours unless listed.
        assert!(!is_package_of("matexp-sparse-0.1.0", &crates));
        assert!(!is_package_of("serde-1.0.0", &crates));
        assert!(!is_package_of("matexp-core", &crates));
    }

    #[test]
    fn options_parse() {
        use crate::cli::parse;
        let none = parse(&["package"]).unwrap();
        assert_eq!(none.package(), Some(&PackageArgs::default()));
        let a = parse(&["package", "--no-verify", "--list"]).unwrap();
        assert_eq!(
            a.package(),
            Some(&PackageArgs {
                no_verify: true,
                list: true
            })
        );
        assert!(parse(&["package", "-p"]).unwrap_err().contains("-p"));
    }

    #[test]
    fn publish_false_members_are_left_out() {
        assert!(is_publishable(None));
        assert!(!is_publishable(Some(&[])));
        assert!(is_publishable(Some(&["internal".to_string()])));
    }

    #[test]
    fn the_workspace_publishes_its_library_crates_only() {
        let crates = workspace_publishable().unwrap();
        for lib in [
            "matexp-core",
            "matexp-leja",
            "matexp-dense",
            "matexp-sparse",
        ] {
            assert!(crates.iter().any(|c| c == lib), "{lib} missing: {crates:?}");
        }
        for tool in ["xtask", "matexp-testkit"] {
            assert!(
                !crates.iter().any(|c| c == tool),
                "{tool} listed: {crates:?}"
            );
        }
    }
}

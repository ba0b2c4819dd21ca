//! Embeds the git commit this extension is built from as the environment
//! variable `WIFITCP_GIT_COMMIT` (read by `build_commit()`; `wifitcp
//! --version` prints it): the full hash of `HEAD` when these sources are a
//! git work tree's, else "unknown" (an sdist, or a copy without `.git`).
//! Setting `WIFITCP_GIT_COMMIT` in the environment overrides it. The build
//! script runs again when `HEAD` or the branch it names moves, so a commit
//! rebuilds (and links) this crate alone; outside git it runs on every build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The commit of `HEAD` if `dir` is inside this repository's work tree
/// (not an sdist unpacked inside some other repository), with the files to
/// watch for it moving.
fn commit(manifest: &Path) -> Option<(String, Vec<PathBuf>)> {
    let top = PathBuf::from(git(manifest, &["rev-parse", "--show-toplevel"])?);
    let ours = manifest.join("../..").canonicalize().ok()?;
    if top.canonicalize().ok()? != ours {
        return None;
    }
    let hash = git(manifest, &["rev-parse", "HEAD"])?;
    let mut watch = Vec::new();
    let mut refs = vec!["HEAD".to_string()];
    if let Some(branch) = git(manifest, &["symbolic-ref", "-q", "HEAD"]) {
        refs.push(branch);
    }
    refs.push("packed-refs".to_string());
    for r in refs {
        if let Some(p) = git(manifest, &["rev-parse", "--path-format=absolute", "--git-path", &r]) {
            watch.push(PathBuf::from(p));
        }
    }
    Some((hash, watch))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WIFITCP_GIT_COMMIT");
    let given = std::env::var("WIFITCP_GIT_COMMIT").ok().filter(|s| !s.is_empty());
    let hash = given.unwrap_or_else(|| {
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
        match commit(&manifest) {
            Some((hash, watch)) => {
                // a file that does not exist would make cargo run this
                // script on every build
                for p in watch.iter().filter(|p| p.exists()) {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
                hash
            }
            None => {
                // no git here (an sdist): watch where `.git` would be, a
                // path that does not exist, so that this script runs on
                // every build and a build directory shared with a git work
                // tree of the same sources never keeps this "unknown"
                println!("cargo:rerun-if-changed={}", manifest.join("../../.git").display());
                "unknown".to_string()
            }
        }
    });
    println!("cargo:rustc-env=WIFITCP_GIT_COMMIT={hash}");
}

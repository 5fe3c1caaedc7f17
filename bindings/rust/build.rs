// SPDX-License-Identifier: BSD-3-Clause
//! Finds libtensorc and the generated op surface (sys_ops.rs, ops.rs), in this order:
//!
//! 1. `TENSORC_LIB_DIR` (the directory holding libtensorc.so) and optionally
//!    `TENSORC_GEN_DIR` (the directory holding sys_ops.rs and ops.rs);
//! 2. `TENSORC_DIR`: a CMake build tree (libtensorc.so + generated/rust/) or an
//!    install prefix (lib*/libtensorc.so + share/tensorc/rust/);
//! 3. `pkg-config tensorc` (`libdir` and `datadir` of tensorc.pc);
//! 4. the CMake build tree of this checkout, `../../build`.
//!
//! The library directory is also written into the rpath of this package's own
//! binaries (tests, examples), so they run without LD_LIBRARY_PATH. A crate
//! that depends on this one gets `DEP_TENSORC_LIB_DIR` in its build script
//! (from `links = "tensorc"`) to do the same (see docs/rust.md).
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIB: &str = "libtensorc.so";
const GEN_FILES: [&str; 2] = ["sys_ops.rs", "ops.rs"];

struct Found {
    lib_dir: PathBuf,
    gen_dir: Option<PathBuf>,
    how: String,
}

fn has_lib(dir: &Path) -> bool {
    dir.join(LIB).exists()
}

fn has_gen(dir: &Path) -> bool {
    GEN_FILES.iter().all(|f| dir.join(f).exists())
}

fn first_gen(cands: &[PathBuf]) -> Option<PathBuf> {
    cands.iter().find(|d| has_gen(d)).cloned()
}

/// Generated-file directories that go with a library directory: a build tree
/// keeps them in generated/rust, an install tree in ../share/tensorc/rust.
fn gen_near(lib_dir: &Path) -> Vec<PathBuf> {
    let mut v = vec![lib_dir.join("generated").join("rust")];
    if let Some(parent) = lib_dir.parent() {
        v.push(parent.join("share").join("tensorc").join("rust"));
        if let Some(pp) = parent.parent() {
            v.push(pp.join("share").join("tensorc").join("rust")); // lib/x86_64-linux-gnu
        }
    }
    v
}

fn env_path(name: &str) -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed={}", name);
    env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn pkg_config(var: &str) -> Option<PathBuf> {
    let out = Command::new("pkg-config").args(["--variable", var, "tensorc"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    if s.is_empty() {
        None
    } else {
        Some(PathBuf::from(s))
    }
}

fn from_prefix(dir: &Path, how: &str) -> Option<Found> {
    if has_lib(dir) {
        // a CMake build tree
        return Some(Found { lib_dir: dir.to_path_buf(), gen_dir: first_gen(&gen_near(dir)), how: how.to_string() });
    }
    for sub in ["lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"] {
        let lib_dir = dir.join(sub);
        if has_lib(&lib_dir) {
            let mut cands = vec![dir.join("share").join("tensorc").join("rust")];
            cands.extend(gen_near(&lib_dir));
            return Some(Found { lib_dir, gen_dir: first_gen(&cands), how: how.to_string() });
        }
    }
    None
}

fn find() -> Result<Found, String> {
    let mut tried = Vec::new();
    if let Some(lib_dir) = env_path("TENSORC_LIB_DIR") {
        if !has_lib(&lib_dir) {
            return Err(format!("TENSORC_LIB_DIR={} holds no {}", lib_dir.display(), LIB));
        }
        let gen_dir = first_gen(&gen_near(&lib_dir));
        return Ok(Found { lib_dir, gen_dir, how: "TENSORC_LIB_DIR".into() });
    }
    if let Some(dir) = env_path("TENSORC_DIR") {
        return from_prefix(&dir, "TENSORC_DIR").ok_or_else(|| {
            format!("TENSORC_DIR={} is neither a CMake build tree nor an install prefix of tensorc (no {} in it or in its lib/)", dir.display(), LIB)
        });
    }
    for v in ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    match pkg_config("libdir") {
        Some(lib_dir) if has_lib(&lib_dir) => {
            let mut cands = Vec::new();
            if let Some(data) = pkg_config("datadir") {
                cands.push(data.join("tensorc").join("rust"));
            }
            cands.extend(gen_near(&lib_dir));
            return Ok(Found { gen_dir: first_gen(&cands), lib_dir, how: "pkg-config tensorc".into() });
        }
        Some(lib_dir) => tried.push(format!("pkg-config tensorc: libdir {} holds no {}", lib_dir.display(), LIB)),
        None => tried.push("pkg-config tensorc: not found".to_string()),
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let tree = manifest.join("..").join("..").join("build");
    if let Some(f) = from_prefix(&tree, "the CMake build tree ../../build") {
        return Ok(f);
    }
    tried.push(format!("{}: no {}", tree.display(), LIB));
    Err(tried.join("; "))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let found = match find() {
        Ok(mut f) => {
            // tidy paths such as <prefix>/lib/pkgconfig/../../lib for the rpath
            f.lib_dir = fs::canonicalize(&f.lib_dir).unwrap_or(f.lib_dir);
            f
        }
        Err(why) => panic!(
            "\n\ntensorc: cannot find libtensorc ({}).\n\
             Build tensorc first (cmake -S . -B build && cmake --build build, from the repository root), or set one of:\n  \
             TENSORC_DIR=<CMake build tree or install prefix>\n  \
             TENSORC_LIB_DIR=<dir with libtensorc.so> and TENSORC_GEN_DIR=<dir with sys_ops.rs and ops.rs>\n  \
             PKG_CONFIG_PATH=<prefix>/lib/pkgconfig (so that `pkg-config tensorc` works)\n\n",
            why
        ),
    };
    let gen_dir = match env_path("TENSORC_GEN_DIR").or_else(|| found.gen_dir.clone()) {
        Some(d) if has_gen(&d) => d,
        Some(d) => panic!(
            "\n\ntensorc: {} does not hold the generated {} and {}.\n\
             Set TENSORC_GEN_DIR to <build tree>/generated/rust or <prefix>/share/tensorc/rust.\n\n",
            d.display(),
            GEN_FILES[0],
            GEN_FILES[1]
        ),
        None => panic!(
            "\n\ntensorc: found {} in {} (via {}) but not the generated sys_ops.rs and ops.rs next to it.\n\
             Set TENSORC_GEN_DIR to <build tree>/generated/rust or <prefix>/share/tensorc/rust \
             (the build writes them with the target tc_generate; `make install` copies them).\n\n",
            LIB,
            found.lib_dir.display(),
            found.how
        ),
    };
    let gen_dir = fs::canonicalize(&gen_dir).unwrap_or(gen_dir);
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    for f in GEN_FILES.iter() {
        let src = gen_dir.join(f);
        println!("cargo:rerun-if-changed={}", src.display());
        fs::copy(&src, out_dir.join(f)).unwrap_or_else(|e| panic!("tensorc: cannot copy {}: {}", src.display(), e));
    }
    println!("cargo:rerun-if-changed={}", found.lib_dir.join(LIB).display());
    println!("cargo:rustc-link-search=native={}", found.lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=tensorc");
    // This package's tests and examples find the library without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", found.lib_dir.display());
    println!("cargo:lib_dir={}", found.lib_dir.display());
    println!("cargo:gen_dir={}", gen_dir.display());
}

//! The interpreter and scripts folder of `ddz::scripts`, resolved here (a flag, an environment
//! variable, else the checkout's `.venv` and `scripts/`), and the packages a command needs,
//! installed here on first use, saying so.

use ddz::scripts::Scripts;
use std::path::PathBuf;

/// Sets `ddz::scripts` from `--python` / `--scripts` (clap reads `DDZ_PYTHON` / `DDZ_SCRIPTS`
/// into them when the flags are not given), else the checkout this binary was built from.
pub fn configure(python: Option<PathBuf>, scripts: Option<PathBuf>) {
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = python.unwrap_or_else(|| checkout.join(".venv/bin/python"));
    let dir = scripts.unwrap_or_else(|| checkout.join("scripts"));
    // The first setting of the process: nothing was set before.
    let _ = ddz::scripts::configure(Scripts::new(python, dir));
}

/// Installs `packages` with the interpreter's pip unless it already runs `import_check`; says
/// so on stderr. When it cannot, says that too: the library's error names what is missing when
/// the command gets there.
pub fn install(import_check: &str, packages: &[&str], purpose: &str) {
    let Ok(scripts) = ddz::scripts::configured() else { return };
    if scripts.has(import_check) {
        return;
    }
    eprintln!("installing {} into {} for {purpose} (first use only)", packages.join(" "), scripts.python().display());
    let ok = std::process::Command::new(scripts.python())
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(packages)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("could not install {}", packages.join(" "));
    }
}

/// matplotlib, for the commands that draw plots.
pub fn install_plotting() {
    install("import matplotlib", &["matplotlib"], "plots");
}

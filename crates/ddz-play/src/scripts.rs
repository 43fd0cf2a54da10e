//! The project's Python side: the interpreter and the folder of scripts that draw the plots,
//! convert DouZero checkpoints and run the reference benches.
//!
//! The library neither looks for them nor installs anything: whoever runs it (the `ddz` CLI:
//! `--python`/`DDZ_PYTHON` and `--scripts`/`DDZ_SCRIPTS`, by default the checkout's `.venv` and
//! `scripts/`) sets them once with [`configure`], and installs the packages a command needs
//! before it runs, saying so on screen. A library call that needs a package that is missing
//! fails with [`ScriptsError::Missing`], which says how to install it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A Python interpreter and the folder of the project's scripts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scripts {
    python: PathBuf,
    dir: PathBuf,
}

static CONFIGURED: OnceLock<Scripts> = OnceLock::new();

/// Sets the interpreter and scripts folder for this process; the first setting stays (a second
/// call hands its value back, unless it is the same).
pub fn configure(scripts: Scripts) -> Result<(), Scripts> {
    let set = CONFIGURED.get_or_init(|| scripts.clone());
    if *set == scripts { Ok(()) } else { Err(scripts) }
}

/// The interpreter and scripts folder set by [`configure`].
pub fn configured() -> Result<&'static Scripts, ScriptsError> {
    CONFIGURED.get().ok_or(ScriptsError::NotSet)
}

impl Scripts {
    /// Scripts in `dir`, run with the interpreter `python`.
    pub fn new(python: impl Into<PathBuf>, dir: impl Into<PathBuf>) -> Scripts {
        Scripts { python: python.into(), dir: dir.into() }
    }

    /// The interpreter.
    pub fn python(&self) -> &Path {
        &self.python
    }

    /// The path of the script `name`.
    pub fn script(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Whether the interpreter runs `import_check` (e.g. `import matplotlib`) without error.
    pub fn has(&self, import_check: &str) -> bool {
        Command::new(&self.python).args(["-c", import_check]).output().is_ok_and(|o| o.status.success())
    }

    /// Ok when the interpreter runs `import_check`; else [`ScriptsError::Missing`] naming
    /// `packages` (what to install) and `purpose` (what they are for).
    pub fn require(&self, import_check: &str, packages: &[&str], purpose: &str) -> Result<(), ScriptsError> {
        if self.has(import_check) {
            return Ok(());
        }
        Err(ScriptsError::Missing {
            python: self.python.clone(),
            packages: packages.join(" "),
            purpose: purpose.to_string(),
        })
    }

    /// Runs the script `name` with `args` to its end; its output when it succeeds.
    pub fn run(&self, name: &str, args: &[&std::ffi::OsStr]) -> Result<Output, ScriptsError> {
        let script = self.script(name);
        let out = Command::new(&self.python)
            .arg(&script)
            .args(args)
            .output()
            .map_err(|source| ScriptsError::Start { python: self.python.clone(), script: script.clone(), source })?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(ScriptsError::Failed { script, stderr });
        }
        Ok(out)
    }
}

/// Runs the plotting script `name` (matplotlib) with `args`.
pub fn plot(name: &str, args: &[&std::ffi::OsStr]) -> Result<(), ScriptsError> {
    let scripts = configured()?;
    scripts.require("import matplotlib", &["matplotlib"], "plots")?;
    scripts.run(name, args).map(|_| ())
}

/// Why a script did not run.
#[derive(Debug, thiserror::Error)]
pub enum ScriptsError {
    /// No interpreter was set ([`configure`]).
    #[error(
        "no Python interpreter is set for ddz's scripts (the ddz command line sets one: --python or \
         DDZ_PYTHON, by default the checkout's .venv)"
    )]
    NotSet,
    /// The interpreter lacks packages.
    #[error(
        "{} lacks {packages} (for {purpose}): `{} -m pip install {packages}` installs it, as the ddz \
         command line does on first use",
        python.display(),
        python.display()
    )]
    Missing {
        /// The interpreter.
        python: PathBuf,
        /// What to install, as pip names it.
        packages: String,
        /// What they are for.
        purpose: String,
    },
    /// The script could not be started.
    #[error("starting {} with {}: {source}", script.display(), python.display())]
    Start {
        /// The interpreter.
        python: PathBuf,
        /// The script.
        script: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// The script exited with an error; its stderr.
    #[error("{} failed: {stderr}", script.display())]
    Failed {
        /// The script.
        script: PathBuf,
        /// What it wrote to stderr.
        stderr: String,
    },
}

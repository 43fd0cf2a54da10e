// Link libtorch so that the binary runs without LD_LIBRARY_PATH and keeps CUDA.
//
// torch-sys tells us where libtorch lives through `DEP_TCH_LIBTORCH_LIB` (it is a direct
// dependency for that reason). We add an rpath to that folder, and link `torch_cuda` with
// `--no-as-needed`: no symbol of ours references it, so a default `--as-needed` link would drop it
// and CUDA would silently be unavailable on GPU machines.
use std::path::Path;

fn main() {
    // This file is also the `ddz` package's build script (included): watch it where it is.
    println!("cargo:rerun-if-changed={}", file!());
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        println!("cargo:rustc-env=DDZ_LIBTORCH_VERSION=unknown");
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    // The PyTorch package's version file sits one folder above its lib/.
    let version_file = Path::new(&lib).join("../version.py");
    println!("cargo:rerun-if-changed={}", version_file.display());
    let version = std::fs::read_to_string(&version_file)
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| l.strip_prefix("__version__ = ").map(|v| v.trim_matches(['\'', '"']).to_string()))
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=DDZ_LIBTORCH_VERSION={version}");
    println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-link-arg=-L{lib}");
    for name in ["torch_cuda", "torch_cpu", "torch", "c10"] {
        if Path::new(&lib).join(format!("lib{name}.so")).exists() {
            println!("cargo:rustc-link-arg=-l{name}");
        }
    }
    // Targets that use no tch symbol (unit tests of the engine) still link libtorch through
    // the lines above, so they need its C++ runtime too.
    println!("cargo:rustc-link-arg=-lstdc++");
}

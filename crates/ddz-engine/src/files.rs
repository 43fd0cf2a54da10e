//! Files written whole or not at all: every output file of the project goes through a temporary
//! file beside it and a rename, so a crash or a full disk leaves the old file (or none), never a
//! cut last line that a later reader takes for data.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `path` by `fill` into a buffered temporary file beside it, then renames it into place.
/// On any error the temporary file is removed and `path` is left as it was.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> std::io::Result<()> {
    let tmp = temporary_beside(path);
    let written = File::create(&tmp).and_then(|file| {
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Writes `bytes` to `path` whole or not at all ([`write_with`]).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    write_with(path, |out| out.write_all(bytes.as_ref()))
}

/// `.NAME.tmp-PID` in the folder of `path`: the same file system, so the rename is atomic.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = std::env::temp_dir().join(format!("ddz-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.jsonl");
        write(&path, "old\n").unwrap();
        let failed = write_with(&path, |out| {
            out.write_all(b"half a li")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "the temporary file is gone");
        write(&path, "new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

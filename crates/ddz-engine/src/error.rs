//! What lies under an error, for the error types that keep it as their source.

/// What lies under an error: the library's own error (I/O, libtorch, JSON), kept whole as the
/// source, or a sentence of ours where nothing lies under it.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

//! Every agent ddz knows, in this process: `NativeAgent(spec)` builds the agent of a spec
//! (networks through the torch-free forward pass, search agents, `douzero:`, `bot:CMD`) and
//! answers the native bot protocol's requests with it, exactly as `ddz bot --agent SPEC` does
//! (the same request, the same answer: its draws are seeded by the request's text). The
//! Python `ddz.Agent` sends it each seat's view, which is all an agent may see.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::Mutex;

/// An agent of ddz by its spec, answering the native bot protocol's requests.
#[pyclass(module = "ddz._ddz")]
pub struct NativeAgent {
    spec: String,
    /// One decision at a time (an agent keeps its draws and buffers); the lock is taken with
    /// the GIL released, so other Python threads run meanwhile.
    agent: Mutex<Box<dyn ddz_play::agents::Agent>>,
}

#[pymethods]
impl NativeAgent {
    /// The agent of `spec` (`ddz eval --help` lists them); a `ValueError` that says why when the
    /// spec does not parse or its files do not load.
    #[new]
    fn new(py: Python<'_>, spec: &str) -> PyResult<NativeAgent> {
        let parsed: ddz_play::agents::AgentSpec = spec.parse().map_err(crate::spiel::value_error)?;
        let agent = py.detach(|| parsed.build()).map_err(crate::spiel::value_error)?;
        Ok(NativeAgent { spec: spec.to_string(), agent: Mutex::new(agent) })
    }

    /// The answer (JSON text) to a native request or a JSON array of them (JSON text): what
    /// `ddz bot` answers to that line. A request that cannot be answered raises `RuntimeError`
    /// with the reason; in a batch, such a request gets `{"error": …}` in its place.
    fn answer(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        py.detach(|| {
            let mut agent = self.agent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            ddz_play::bot::answer_native_json(agent.as_mut(), request).map(|answer| answer.to_string())
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!("NativeAgent({:?})", self.spec)
    }
}

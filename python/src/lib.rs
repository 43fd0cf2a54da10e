//! `ddz._ddz`: the Rust half of the `ddz` Python package. The engine, the encoder and every
//! agent of ddz (networks through the torch-free forward pass: no libtorch), behind OpenSpiel's
//! names ([`spiel`]), the agents by spec ([`agent`]), a vectorized environment stepping many
//! games per call ([`vec_env`]) and small helpers ([`helpers`]). The pure-Python half (`python/pysrc/ddz`) adds the Gymnasium environment.

mod agent;
mod helpers;
mod spiel;
mod vec_env;

use pyo3::prelude::*;

#[pymodule]
fn _ddz(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<spiel::Game>()?;
    m.add_class::<spiel::State>()?;
    m.add_class::<spiel::View>()?;
    m.add_class::<agent::NativeAgent>()?;
    m.add_class::<helpers::RuleAgent>()?;
    m.add_class::<helpers::RandomAgent>()?;
    m.add_class::<vec_env::VecEnv>()?;
    m.add_function(wrap_pyfunction!(helpers::legal_plays, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::encode_state, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::encode_action, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::encode_plays, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::generate_deals, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::limits, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::read_deals, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::write_deals, m)?)?;
    m.add("NUM_PLAYS", ddz_engine::game::NUM_ACTIONS)?;
    m.add("NUM_DISTINCT_ACTIONS", ddz_engine::game::spiel::NUM_DISTINCT_ACTIONS)?;
    m.add("FIRST_BID", ddz_engine::game::spiel::FIRST_BID)?;
    m.add("FIRST_PLAY", ddz_engine::game::spiel::FIRST_PLAY)?;
    m.add("STATE_DIM", ddz_engine::encode::STATE_DIM)?;
    m.add("FEATURE_LAYOUT", ddz_play::nets::FEATURE_LAYOUT)?;
    m.add("ACTION_DIM", ddz_engine::encode::ACTION_DIM)?;
    m.add("CHANCE_PLAYER_ID", spiel::CHANCE)?;
    m.add("TERMINAL_PLAYER_ID", spiel::TERMINAL)?;
    Ok(())
}

//! TEMPORARY experiment knobs (TOOLSCOUT_EXP="name=value,..."); removed before merge.
use std::collections::HashMap;
use std::sync::OnceLock;

pub fn knob(name: &str, default: f64) -> f64 {
    static MAP: OnceLock<HashMap<String, f64>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        std::env::var("TOOLSCOUT_EXP")
            .unwrap_or_default()
            .split(',')
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                Some((k.trim().to_string(), v.trim().parse().ok()?))
            })
            .collect()
    });
    map.get(name).copied().unwrap_or(default)
}

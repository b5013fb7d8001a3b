//! Integration tests of the headless library (built without default features too): importers, evaluation,
//! blend spaces, layers, file formats and the module structure. One module per topic.

#[path = "../common/mod.rs"]
mod common;

mod blend_pose;
mod blend_weights;
mod extended;
mod fuzz_corpus;
mod import_assets;
mod import_formats;
mod layers;
mod properties;
mod structure;
mod unity_layout;
mod vrma_binding;

//! The encoders of every layout animtune writes: `.animclip` (`native`), the Unity-side `AnimDataSequence`
//! (`unity`), glTF (`gltf`) and VRM Animation (`vrma`). The formats and their decoders live in `clipfile`.

pub mod gltf;
pub mod native;
pub mod unity;
pub mod vrma;

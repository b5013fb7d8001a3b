// Fragment colour for an sRGB target: the hardware encodes the linear colour on write.
fn to_target(linear: vec4<f32>) -> vec4<f32> {
    return linear;
}

// Fragment colour for a plain 8-bit target (devices that cannot view an sRGB texture as unorm, such as GL): the
// shader writes the sRGB encoding itself (IEC 61966-2-1), so the bytes match those of an sRGB target.
fn to_target(linear: vec4<f32>) -> vec4<f32> {
    let c = clamp(linear.rgb, vec3<f32>(0.0), vec3<f32>(1.0));
    let low = c * 12.92;
    let high = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return vec4<f32>(select(high, low, c <= vec3<f32>(0.0031308)), linear.a);
}

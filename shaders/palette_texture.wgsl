// The joint palette as an RGBA32 float texture, for adapters without vertex storage buffers (GL, WebGL2): row i
// holds joint i, one matrix column per texel.
@group(1) @binding(0) var joints: texture_2d<f32>;

fn joint_matrix(i: u32) -> mat4x4<f32> {
    let row = i32(i);
    return mat4x4<f32>(
        textureLoad(joints, vec2<i32>(0, row), 0),
        textureLoad(joints, vec2<i32>(1, row), 0),
        textureLoad(joints, vec2<i32>(2, row), 0),
        textureLoad(joints, vec2<i32>(3, row), 0),
    );
}

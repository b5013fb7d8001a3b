// The joint palette as a storage buffer: one column-major matrix per joint.
@group(1) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;

fn joint_matrix(i: u32) -> mat4x4<f32> {
    return joints[i];
}

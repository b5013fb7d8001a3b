// Linear-blend skinned meshes: four influences, a key light plus hemisphere ambient, base colour factor × texture.
// The joint palette (group 1, binding 0, and `fn joint_matrix`) is prepended by the renderer: a storage buffer
// (palette_storage.wgsl) or, where the adapter has no vertex storage buffers (GL, WebGL2), a texture
// (palette_texture.wgsl). So is `fn to_target`, the colour as the target stores it (output_*_target.wgsl).
// Morph targets come first (glTF: base + Σ weight × displacement, before skinning): the displacements of a
// primitive are texels of an RGBA32 float texture, (target × vertices + vertex) × 2 for the position and + 1 for
// the normal, read with textureLoad (so GL devices take the same path); a uniform lists the targets whose weight
// is not zero, two (target, weight) pairs per vec4.

struct Camera {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    light_dir: vec4<f32>,
};

struct Material {
    base_color: vec4<f32>,
    // x: 1 when a base colour texture is bound.
    flags: vec4<f32>,
};

@group(0) @binding(0) var<uniform> camera: Camera;
@group(2) @binding(0) var<uniform> material: Material;
@group(2) @binding(1) var base_texture: texture_2d<f32>;
@group(2) @binding(2) var base_sampler: sampler;

struct Morph {
    // x: targets listed in `entries`; y: texture width in texels; z: the primitive's vertex count.
    info: vec4<u32>,
    entries: array<vec4<f32>, 64>,
};

@group(3) @binding(0) var morph_displacements: texture_2d<f32>;
@group(3) @binding(1) var<uniform> morph: Morph;

fn morph_texel(i: u32) -> vec4<f32> {
    let width = morph.info.y;
    return textureLoad(morph_displacements, vec2<i32>(i32(i % width), i32(i / width)), 0);
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joint_index: vec4<u32>,
    @location(4) weight: vec4<f32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
};

@vertex
fn vs_main(v: VertexIn, @builtin(vertex_index) vertex: u32) -> VertexOut {
    var position = v.position;
    var normal = v.normal;
    for (var k = 0u; k < morph.info.x; k = k + 1u) {
        let e = morph.entries[k / 2u];
        let pair = select(e.xy, e.zw, (k & 1u) == 1u);
        let base = (u32(pair.x) * morph.info.z + vertex) * 2u;
        position = position + morph_texel(base).xyz * pair.y;
        normal = normal + morph_texel(base + 1u).xyz * pair.y;
    }
    let skin = joint_matrix(v.joint_index.x) * v.weight.x
        + joint_matrix(v.joint_index.y) * v.weight.y
        + joint_matrix(v.joint_index.z) * v.weight.z
        + joint_matrix(v.joint_index.w) * v.weight.w;
    let world = skin * vec4<f32>(position, 1.0);
    var out: VertexOut;
    out.clip = camera.view_proj * world;
    out.normal = (skin * vec4<f32>(normal, 0.0)).xyz;
    out.uv = v.uv;
    return out;
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    var albedo = material.base_color;
    if (material.flags.x > 0.5) {
        albedo = albedo * textureSample(base_texture, base_sampler, in.uv);
    }
    let key = max(dot(n, -camera.light_dir.xyz), 0.0) * 0.75;
    let sky = mix(vec3<f32>(0.18, 0.16, 0.14), vec3<f32>(0.42, 0.45, 0.5), n.y * 0.5 + 0.5);
    return to_target(vec4<f32>(albedo.rgb * (sky + vec3<f32>(key)), albedo.a));
}

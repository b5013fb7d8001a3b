// Writes assets/morph_sampler.glb: a quad with three morph targets that exercises what the Khronos morph samples
// (SimpleMorph, AnimatedMorphCube, MorphStressTest) do, in one small file we may redistribute (CC0):
//   - target "Raise": dense POSITION and NORMAL displacements;
//   - target "SparseZeros": a sparse POSITION accessor with no buffer view (zeros, two vertices replaced);
//   - target "SparseOnBase": a sparse POSITION accessor over a dense base (one vertex replaced);
//   - default weights [0.25, 0, 0] on the mesh and names in mesh.extras.targetNames;
//   - three animations of the node's weights: "Linear", "Step" and "Cubic" (CUBICSPLINE with in/out tangents).
// Usage: node scripts/make_morph_glb.mjs OUT.glb
import { writeFile } from 'node:fs/promises';
import { writeGlb } from './glb.mjs';

const out = process.argv[2];
if (!out) {
  console.error('usage: node make_morph_glb.mjs OUT.glb');
  process.exit(2);
}

const parts = [];
const views = [];
const accessors = [];
let offset = 0;
const view = (array, target) => {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  parts.push(bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4));
  views.push({ buffer: 0, byteOffset: offset, byteLength: bytes.length, ...(target ? { target } : {}) });
  offset += bytes.length + ((4 - (bytes.length % 4)) % 4);
  return views.length - 1;
};
const accessor = (a) => {
  accessors.push(a);
  return accessors.length - 1;
};
const vec3s = (values) =>
  accessor({
    bufferView: view(new Float32Array(values), 34962),
    componentType: 5126,
    count: values.length / 3,
    type: 'VEC3',
    min: [0, 1, 2].map((c) => Math.min(...values.filter((_, i) => i % 3 === c))),
    max: [0, 1, 2].map((c) => Math.max(...values.filter((_, i) => i % 3 === c))),
  });
const scalars = (values, withBounds) =>
  accessor({
    bufferView: view(new Float32Array(values)),
    componentType: 5126,
    count: values.length,
    type: 'SCALAR',
    ...(withBounds ? { min: [Math.min(...values)], max: [Math.max(...values)] } : {}),
  });
const sparse = (base, indices, values) => ({
  ...(base === null ? {} : { bufferView: view(new Float32Array(base), 34962) }),
  componentType: 5126,
  count: 4,
  type: 'VEC3',
  sparse: {
    count: indices.length,
    indices: { bufferView: view(new Uint16Array(indices)), componentType: 5123 },
    values: { bufferView: view(new Float32Array(values)) },
  },
});
const withBounds = (a, all) => ({
  ...a,
  min: [0, 1, 2].map((c) => Math.min(...all.filter((_, i) => i % 3 === c))),
  max: [0, 1, 2].map((c) => Math.max(...all.filter((_, i) => i % 3 === c))),
});

const positions = vec3s([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
const normals = vec3s([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
const indices = accessor({
  bufferView: view(new Uint16Array([0, 1, 2, 0, 2, 3]), 34963),
  componentType: 5123,
  count: 6,
  type: 'SCALAR',
});
const raise = vec3s([0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0.5, 0]);
const raiseNormals = vec3s([0, 0, 0, 0, 0, 0, 0, 0.3, -0.1, 0, 0.3, -0.1]);
const sparseZeros = accessor(
  withBounds(sparse(null, [1, 3], [0.2, 0, 0.1, -0.3, 0, 0.2]), [0, 0, 0, 0.2, 0, 0.1, 0, 0, 0, -0.3, 0, 0.2]),
);
const sparseOnBase = accessor(
  withBounds(
    sparse([0, 0, 0.05, 0, 0, 0.05, 0, 0, 0.05, 0, 0, 0.05], [2], [0.4, 0.4, 0]),
    [0, 0, 0.05, 0, 0, 0.05, 0.4, 0.4, 0, 0, 0, 0.05],
  ),
);

const times = scalars([0, 0.5, 1.25, 2], true);
const linearWeights = scalars([0, 0, 0, 1, 0.5, 0, 0.2, 1, 0.8, 0, 0, 1]);
const stepWeights = scalars([1, 0, 0, 0.3, 1, 0, 0.6, 0.2, 1, 0, 0, 0]);
// CUBICSPLINE: per key, in-tangents (3), values (3), out-tangents (3).
const cubicWeights = scalars([
  0, 0, 0, /**/ 0, 0, 0, /**/ 2, -1, 0.5,
  1, 1, 0, /**/ 1, 0.5, 0.25, /**/ -1, 0, 2,
  0.5, -2, 1, /**/ 0.4, 0.9, 1, /**/ 0, 0, 0,
  3, 0, -1, /**/ 0, 0, 0, /**/ 0, 0, 0,
]);
const animation = (name, output, interpolation) => ({
  name,
  samplers: [{ input: times, output, interpolation }],
  channels: [{ sampler: 0, target: { node: 0, path: 'weights' } }],
});

const json = {
  asset: { version: '2.0', generator: 'animtune scripts/make_morph_glb.mjs' },
  scene: 0,
  scenes: [{ nodes: [0] }],
  nodes: [{ name: 'Quad', mesh: 0 }],
  meshes: [
    {
      name: 'QuadMesh',
      weights: [0.25, 0, 0],
      extras: { targetNames: ['Raise', 'SparseZeros', 'SparseOnBase'] },
      primitives: [
        {
          attributes: { POSITION: positions, NORMAL: normals },
          indices,
          targets: [{ POSITION: raise, NORMAL: raiseNormals }, { POSITION: sparseZeros }, { POSITION: sparseOnBase }],
        },
      ],
    },
  ],
  animations: [
    animation('Linear', linearWeights, 'LINEAR'),
    animation('Step', stepWeights, 'STEP'),
    animation('Cubic', cubicWeights, 'CUBICSPLINE'),
  ],
  accessors,
  bufferViews: views,
  buffers: [{ byteLength: offset }],
};
await writeFile(out, writeGlb(json, Buffer.concat(parts)));
console.log(`wrote ${out}`);

// Writes assets/vrm/secondary_test.vrm: assets/vrm/mtoon_default.vrm (VRM 1.0) with spring bones, morph targets
// and expressions added: the VRM 1.0 character the spring-bone and expression checks run on (no redistributable
// VRM 1.0 with them was found).
// Springs (VRMC_springBone):
//   - "ponytail": four joints below the head (three spring joints and an end), gravity, colliding with a sphere
//     on the head and capsules on the chest and the neck;
//   - "tail": four joints behind the hips (three spring joints and an end) in the hips' space (`center`),
//     colliding with a sphere on the hips and capsules on both upper legs;
//   - one joint that leaves its properties out (three-vrm's defaults apply, drag 0.4).
// Eyes: leftEye and rightEye below the head, in the humanoid table (the file's look-at turns them).
// Morph targets on the head mesh: four constant displacements (down, up, forward, sideways), named.
// Expressions (VRMC_vrm.expressions), to exercise what three-vrm's VRMExpressionManager does:
//   - blink (target 0), aa (target 2 at 0.8), lookUp (target 1 at 0.3);
//   - happy (target 1) blocks blink and blends mouth; surprised (target 3) is binary and blends mouth and
//     look-at; angry (target 1 at 0.5) also has a material colour bind (not applied: a warning);
//   - a custom expression, smirk (targets 2 and 3 at 0.3 and 0.4).
// Usage: node scripts/make_secondary_vrm.mjs SRC.vrm OUT.vrm
import { readFile, writeFile } from 'node:fs/promises';

import { readGlb, writeGlb } from './glb.mjs';

const [src, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node make_secondary_vrm.mjs SRC.vrm OUT.vrm');
  process.exit(2);
}
const { json, bin } = readGlb(await readFile(src));
const byName = (name) => {
  const i = json.nodes.findIndex((n) => n.name === name);
  if (i < 0) {
    console.error(`${src}: no node named '${name}'`);
    process.exit(1);
  }
  return i;
};
// A chain of new nodes below `parent`, each offset from the one before; returns their indices.
const chain = (parent, names, offsets) => {
  const indices = [];
  let above = parent;
  names.forEach((name, i) => {
    const index = json.nodes.length;
    json.nodes.push({ name, translation: offsets[i] });
    const p = json.nodes[above];
    p.children = [...(p.children ?? []), index];
    indices.push(index);
    above = index;
  });
  return indices;
};

const head = byName('head');
const hips = byName('hips');
const hair = chain(head, ['hair_1', 'hair_2', 'hair_3', 'hair_end'], [
  [0, 0.08, -0.09],
  [0, -0.1, -0.04],
  [0, -0.12, -0.01],
  [0, -0.1, 0],
]);
const tail = chain(hips, ['tail_1', 'tail_2', 'tail_3', 'tail_end'], [
  [0, -0.02, -0.1],
  [0, -0.04, -0.14],
  [0, -0.05, -0.13],
  [0, -0.04, -0.12],
]);

const [leftEye] = chain(head, ['leftEye'], [[0.03, 0.05, 0.09]]);
const [rightEye] = chain(head, ['rightEye'], [[-0.03, 0.05, 0.09]]);
json.extensions.VRMC_vrm.humanoid.humanBones.leftEye = { node: leftEye };
json.extensions.VRMC_vrm.humanoid.humanBones.rightEye = { node: rightEye };
// Unequal ranges, so that inner and outer, up and down, are told apart.
json.extensions.VRMC_vrm.lookAt = {
  ...json.extensions.VRMC_vrm.lookAt,
  type: 'bone',
  rangeMapHorizontalInner: { inputMaxValue: 60, outputScale: 6 },
  rangeMapHorizontalOuter: { inputMaxValue: 90, outputScale: 12 },
  rangeMapVerticalDown: { inputMaxValue: 45, outputScale: 9 },
  rangeMapVerticalUp: { inputMaxValue: 70, outputScale: 11 },
};

const colliders = [
  { node: head, shape: { sphere: { offset: [0, 0.06, 0], radius: 0.1 } } },
  { node: byName('chest'), shape: { capsule: { offset: [0, 0.02, 0], radius: 0.09, tail: [0, 0.2, 0] } } },
  { node: byName('neck'), shape: { capsule: { offset: [0, 0, 0], radius: 0.05, tail: [0, 0.1, 0] } } },
  { node: hips, shape: { sphere: { offset: [0, 0, -0.02], radius: 0.11 } } },
  { node: byName('leftUpperLeg'), shape: { capsule: { offset: [0, 0, 0], radius: 0.07, tail: [0, -0.35, 0] } } },
  { node: byName('rightUpperLeg'), shape: { capsule: { offset: [0, 0, 0], radius: 0.07, tail: [0, -0.35, 0] } } },
];
const joint = (node, settings) => ({ node, ...settings });
const hairSettings = { hitRadius: 0.02, stiffness: 0.8, gravityPower: 0.6, gravityDir: [0, -1, 0], dragForce: 0.35 };
const tailSettings = { hitRadius: 0.03, stiffness: 1.5, gravityPower: 0.3, gravityDir: [0, -1, 0], dragForce: 0.25 };
json.extensions.VRMC_springBone = {
  specVersion: '1.0',
  colliders,
  colliderGroups: [
    { name: 'head', colliders: [0] },
    { name: 'body', colliders: [1, 2] },
    { name: 'hips and legs', colliders: [3, 4, 5] },
  ],
  springs: [
    {
      name: 'ponytail',
      joints: [joint(hair[0], hairSettings), joint(hair[1], hairSettings), joint(hair[2], {}), joint(hair[3], {})],
      colliderGroups: [0, 1],
    },
    {
      name: 'tail',
      joints: tail.map((n) => joint(n, tailSettings)),
      colliderGroups: [2],
      center: hips,
    },
  ],
};
json.extensionsUsed = [...new Set([...(json.extensionsUsed ?? []), 'VRMC_springBone'])];

// Morph targets: each a constant displacement of every vertex of the head mesh.
const headMesh = json.nodes.findIndex((n) => n.mesh !== undefined);
const mesh = json.meshes[json.nodes[headMesh].mesh];
const targetNames = ['Down', 'Up', 'Forward', 'Side'];
const displacements = [
  [0, -0.02, 0],
  [0, 0.03, 0],
  [0, 0, 0.04],
  [0.03, 0, 0],
];
const chunks = [bin];
let offset = bin.length;
for (const primitive of mesh.primitives) {
  const count = json.accessors[primitive.attributes.POSITION].count;
  primitive.targets = displacements.map((d) => {
    const data = Buffer.alloc(count * 12);
    for (let v = 0; v < count; v++) d.forEach((c, i) => data.writeFloatLE(c, v * 12 + i * 4));
    json.bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: data.length });
    chunks.push(data);
    offset += data.length;
    json.accessors.push({
      bufferView: json.bufferViews.length - 1,
      componentType: 5126,
      count,
      type: 'VEC3',
      min: d,
      max: d,
    });
    return { POSITION: json.accessors.length - 1 };
  });
}
mesh.weights = [0, 0, 0, 0];
mesh.extras = { ...(mesh.extras ?? {}), targetNames };
const newBin = Buffer.concat(chunks);
json.buffers[0].byteLength = newBin.length;

const morph = (index, weight = 1) => ({ node: headMesh, index, weight });
json.extensions.VRMC_vrm.expressions = {
  preset: {
    blink: { morphTargetBinds: [morph(0)] },
    aa: { morphTargetBinds: [morph(2, 0.8)] },
    lookUp: { morphTargetBinds: [morph(1, 0.3)] },
    happy: { morphTargetBinds: [morph(1)], overrideBlink: 'block', overrideMouth: 'blend' },
    surprised: {
      morphTargetBinds: [morph(3)],
      isBinary: true,
      overrideMouth: 'blend',
      overrideLookAt: 'blend',
    },
    angry: {
      morphTargetBinds: [morph(1, 0.5)],
      materialColorBinds: [{ material: 0, type: 'color', targetValue: [1, 0, 0, 1] }],
    },
  },
  custom: {
    smirk: { morphTargetBinds: [morph(2, 0.3), morph(3, 0.4)] },
  },
};
json.extensions.VRMC_vrm.meta.name = 'secondary_test';
await writeFile(out, writeGlb(json, newBin));
console.log(
  `${out}: ${hair.length + tail.length} spring nodes, ${colliders.length} colliders, ` +
    `${targetNames.length} morph targets, 7 expressions`,
);

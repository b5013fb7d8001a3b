// Writes assets/vrm/springs_test.vrm: assets/vrm/mtoon_default.vrm (VRM 1.0) with VRMC_springBone added, the
// VRM 1.0 character the spring-bone checks run on (no redistributable VRM 1.0 with springs was found):
//   - "ponytail": four joints below the head (three spring joints and an end), gravity, colliding with a sphere
//     on the head and capsules on the chest and the neck;
//   - "tail": four joints behind the hips (three spring joints and an end) in the hips' space (`center`),
//     colliding with a sphere on the hips and capsules on both upper legs;
//   - one joint that leaves its properties out (three-vrm's defaults apply, drag 0.4).
// Usage: node scripts/make_spring_vrm.mjs SRC.vrm OUT.vrm
import { readFile, writeFile } from 'node:fs/promises';

import { readGlb, writeGlb } from './glb.mjs';

const [src, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node make_spring_vrm.mjs SRC.vrm OUT.vrm');
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
json.extensions.VRMC_vrm.meta.name = 'springs_test';
await writeFile(out, writeGlb(json, bin));
console.log(`${out}: ${hair.length + tail.length} spring nodes, ${colliders.length} colliders`);

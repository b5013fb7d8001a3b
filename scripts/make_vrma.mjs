// Makes a VRM Animation (.vrma, a GLB) from one animation of a glTF file, for the retargeting check against
// three-vrm: the glTF's nodes, buffers and that animation, plus a VRMC_vrm_animation humanoid table.
// Usage: node scripts/make_vrma.mjs SRC.gltf INSPECT.json ANIMATION OUT.vrma [TWIST_DEG]
//   INSPECT.json is `animtune inspect SRC.gltf --json` (its humanoid bones name the nodes of the table);
//   TWIST_DEG turns the hips' rest rotation about +Y by that many degrees (the keys stay as they are), which makes
//   a clip whose rest pose is not the spec's T-pose facing +Z: three-vrm takes its motion relative to that rest.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { writeGlb } from './glb.mjs';

const [src, inspectFile, animationName, out, twistArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node make_vrma.mjs SRC.gltf INSPECT.json ANIMATION OUT.vrma [TWIST_DEG]');
  process.exit(2);
}
const gltf = JSON.parse(await readFile(src, 'utf8'));
const inspect = JSON.parse(await readFile(inspectFile, 'utf8'));
if (gltf.buffers.length !== 1 || !gltf.buffers[0].uri) {
  console.error(`${src}: expected one external buffer`);
  process.exit(1);
}
const bin = await readFile(path.join(path.dirname(src), decodeURIComponent(gltf.buffers[0].uri)));

// Unity HumanBodyBones names (ours) to VRM 1.0 names: lower camel case, the thumb's three bones one step down.
const vrm1Name = (unity) => {
  const thumb = unity.match(/^(Left|Right)Thumb(Proximal|Intermediate|Distal)$/);
  if (thumb) {
    const shifted = { Proximal: 'Metacarpal', Intermediate: 'Proximal', Distal: 'Distal' }[thumb[2]];
    return `${thumb[1].toLowerCase()}Thumb${shifted}`;
  }
  return unity[0].toLowerCase() + unity.slice(1);
};
const nodeIndex = new Map(gltf.nodes.map((n, i) => [n.name, i]));
const humanBones = {};
for (const [bone, joint] of Object.entries(inspect.humanoid.bones)) {
  if (!nodeIndex.has(joint)) {
    console.error(`${src}: no node named '${joint}' (${bone})`);
    process.exit(1);
  }
  humanBones[vrm1Name(bone)] = { node: nodeIndex.get(joint) };
}

const animation = gltf.animations.find((a) => a.name === animationName);
if (!animation) {
  console.error(`${src}: no animation '${animationName}'`);
  process.exit(1);
}
// The spec's channels only: rotations of human bones and the hips' translation.
const hipsNode = humanBones.hips?.node;
const humanNodes = new Set(Object.values(humanBones).map((b) => b.node));
animation.channels = animation.channels.filter(
  ({ target }) =>
    (target.path === 'rotation' && humanNodes.has(target.node)) ||
    (target.path === 'translation' && target.node === hipsNode),
);
const used = new Set(animation.channels.map((c) => c.sampler));
const renumber = new Map([...used].sort((a, b) => a - b).map((old, i) => [old, i]));
animation.samplers = animation.samplers.filter((_, i) => used.has(i));
for (const channel of animation.channels) channel.sampler = renumber.get(channel.sampler);
gltf.animations = [animation];

// Quaternions as [x, y, z, w].
const multiply = ([ax, ay, az, aw], [bx, by, bz, bw]) => [
  aw * bx + ax * bw + ay * bz - az * by,
  aw * by - ax * bz + ay * bw + az * bx,
  aw * bz + ax * by - ay * bx + az * bw,
  aw * bw - ax * bx - ay * by - az * bz,
];
const conjugate = ([x, y, z, w]) => [-x, -y, -z, w];
const twist = Number(twistArg ?? 0);
if (twist !== 0) {
  // The hips' parent's model-space rest rotation, so the turn is about the model's +Y (up), not the parent's.
  const parentOf = new Map();
  gltf.nodes.forEach((n, i) => (n.children ?? []).forEach((c) => parentOf.set(c, i)));
  let parent = [0, 0, 0, 1];
  for (let i = parentOf.get(hipsNode); i !== undefined; i = parentOf.get(i)) {
    parent = multiply(gltf.nodes[i].rotation ?? [0, 0, 0, 1], parent);
  }
  const h = (twist * Math.PI) / 360;
  const turn = [0, Math.sin(h), 0, Math.cos(h)];
  const hips = gltf.nodes[hipsNode];
  // local' = parent⁻¹ · turn · parent · local: the model-space rest rotation turned about +Y.
  hips.rotation = multiply(multiply(multiply(conjugate(parent), turn), parent), hips.rotation ?? [0, 0, 0, 1]);
}

gltf.extensionsUsed = [...new Set([...(gltf.extensionsUsed ?? []), 'VRMC_vrm_animation'])];
gltf.extensions = {
  ...(gltf.extensions ?? {}),
  VRMC_vrm_animation: { specVersion: '1.0', humanoid: { humanBones } },
};
// Meshes, skins, materials and images are not part of an animation; the nodes keep their hierarchy and rests.
for (const key of ['meshes', 'skins', 'materials', 'textures', 'images', 'samplers']) delete gltf[key];
for (const node of gltf.nodes) {
  delete node.mesh;
  delete node.skin;
}
delete gltf.buffers[0].uri;
gltf.buffers[0].byteLength = bin.length;

await writeFile(out, writeGlb(gltf, bin));
console.log(`${out}: '${animationName}' of ${src}, ${Object.keys(humanBones).length} human bones, rest hips turned ${twist}°`);
